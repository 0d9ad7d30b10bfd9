//! CUDA graphs: what a stream capture records, or a program adds node by
//! node, kept as a list of work to replay.
//!
//! Work runs synchronously here (each launch to its end when it is made),
//! so a graph is its nodes in the order they were added: a node's
//! dependencies must be added before it (`cudaGraphAdd*Node` takes them
//! as existing nodes), so that order is always a valid order of the
//! graph's edges, and replaying it gives the values any valid order of a
//! race-free graph gives. Captured work runs when the graph is launched,
//! not when it is captured, as on a GPU.
//!
//! A stream is capturing from `cudaStreamBeginCapture` to
//! `cudaStreamEndCapture`; another stream joins the capture when it waits
//! on an event recorded in a capturing stream (CUDA's fork and join),
//! and leaves it when the capture ends.

use crate::err;
use crate::err::{Fail, Res};
use std::collections::HashMap;

/// `cudaHostFn_t`: a function of the program's, called with its data.
pub type HostFn = unsafe extern "C" fn(*mut std::ffi::c_void);

/// One piece of work of a graph.
#[derive(Clone, Debug)]
pub enum Node {
    /// A kernel launch: the function's stub, its configuration and its
    /// parameter bytes as packed at capture.
    Kernel {
        /// The host stub the program registered.
        stub: u64,
        /// Blocks.
        grid: [u32; 3],
        /// Threads a block.
        block: [u32; 3],
        /// Dynamic shared memory a block.
        shared: u64,
        /// The parameter buffer.
        params: Vec<u8>,
        /// Launched cooperatively (`crate::coop`): its grid workspace is
        /// made when the node runs.
        cooperative: bool,
    },
    /// `cudaMemcpy*Async` or a memcpy node: the pointers, read when the
    /// graph runs.
    Copy {
        /// Destination.
        dst: u64,
        /// Source.
        src: u64,
        /// Bytes.
        n: usize,
        /// `cudaMemcpyKind`.
        kind: i32,
    },
    /// `cudaMemsetAsync` or a memset node: `rows` rows of `n` bytes,
    /// `pitch` apart.
    Set(Memset),
    /// `cudaLaunchHostFunc` or a host node: the program's function and
    /// its data.
    Host {
        /// `cudaHostFn_t`.
        f: HostFn,
        /// Its argument.
        data: u64,
    },
    /// An empty node (a join point): nothing to do.
    Empty,
    /// `cudaGraphAddEventRecordNode`, or `cudaEventRecordWithFlags(..,
    /// cudaEventRecordExternal)` captured: the event is recorded when the
    /// node runs.
    EventRecord(u64),
    /// `cudaGraphAddEventWaitNode`, or `cudaStreamWaitEvent(..,
    /// cudaEventWaitExternal)` captured: a wait on the event (done at
    /// once: every earlier piece of work has run).
    EventWait(u64),
    /// Another graph's nodes, as `cudaGraphLaunch` of an executable
    /// graph into a capturing stream records them.
    Child(Vec<Node>),
}

/// A memset's rows: `rows` rows of `width` elements, `pitch` bytes apart
/// (a `Node::Set`, and what `abi_graph::set` writes).
#[derive(Clone, Copy, Debug)]
pub struct Memset {
    /// Destination.
    pub dst: u64,
    /// The byte value (elements of 2 or 4 bytes: `element`).
    pub value: u32,
    /// Bytes of one element: 1, 2 or 4.
    pub element: u32,
    /// Elements a row.
    pub width: u64,
    /// Rows.
    pub rows: u64,
    /// Bytes between rows.
    pub pitch: u64,
}

/// A copy of a kernel node's parameter buffer, and a pointer into it per
/// parameter (`cudaGraphKernelNodeGetParams`'s `kernelParams`).
type ArgsView = (Box<[u8]>, Box<[u64]>);

/// A graph's nodes in the order added, and each one's dependencies
/// (indices of earlier nodes).
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// The nodes.
    pub nodes: Vec<Node>,
    /// `deps[i]`: the nodes node `i` follows. A captured node follows the
    /// one captured before it (work is captured in the order it is made).
    pub deps: Vec<Vec<u64>>,
}

/// An executable graph: a copy of a graph's nodes when it was
/// instantiated (a later change to the graph does not reach it).
#[derive(Clone, Debug)]
pub struct Exec {
    /// The graph it was instantiated from: the handles of its nodes name
    /// this graph's nodes too (`cudaGraphExec*NodeSetParams`).
    pub origin: u64,
    /// Its nodes and their dependencies.
    pub graph: Graph,
}

/// The graphs, executable graphs and captures of a runtime.
#[derive(Debug, Default)]
pub struct Graphs {
    /// Graphs by handle.
    graphs: HashMap<u64, Graph>,
    /// Executable graphs by handle.
    execs: HashMap<u64, Exec>,
    /// `cudaGraphKernelNodeGetParams`'s arrays of argument pointers, by
    /// node handle: a copy of the node's parameter buffer and a pointer
    /// into it per parameter, kept until the next call for that node.
    views: HashMap<u64, ArgsView>,
    /// Capturing streams: the graph each records into.
    capturing: HashMap<u64, Capture>,
    /// Events recorded in a capturing stream, and the graph they belong to.
    events: HashMap<u64, u64>,
    /// Handles: one counter for graphs, executables and nodes.
    next: u64,
    /// `cudaThreadExchangeStreamCaptureMode`'s mode.
    mode: i32,
}

/// A stream's part in a capture.
#[derive(Clone, Copy, Debug)]
struct Capture {
    /// The graph recorded into.
    graph: u64,
    /// The stream that began the capture (only it may end it).
    origin: u64,
    /// The capture's id (`cudaStreamGetCaptureInfo`).
    id: u64,
    /// Invalidated by an operation a capture does not allow (a
    /// synchronisation of a capturing stream): ending it gives no graph.
    invalid: bool,
}

/// What a stream's capture status is (`cudaStreamCaptureStatus`).
pub const CAPTURE_NONE: i32 = 0;
/// Capturing.
pub const CAPTURE_ACTIVE: i32 = 1;
/// Capturing, but invalidated: ending it gives an error.
pub const CAPTURE_INVALIDATED: i32 = 2;

impl Graphs {
    fn handle(&mut self) -> u64 {
        self.next += 0x10;
        0x6700_0000 + self.next
    }

    /// `cudaGraphCreate`: an empty graph.
    pub fn create(&mut self) -> u64 {
        let h = self.handle();
        self.graphs.insert(h, Graph::default());
        h
    }

    /// `cudaGraphDestroy`.
    pub fn destroy(&mut self, g: u64) -> Res<()> {
        if self.capturing.values().any(|c| c.graph == g) {
            return Err(Fail::said(
                err::INVALID_VALUE,
                "cudaGraphDestroy: the graph is being captured into",
            ));
        }
        self.views.retain(|&n, _| n >> 32 != g);
        self.graphs.remove(&g).map(|_| ()).ok_or_else(bad_handle)
    }

    /// Adds `node` to graph `g` after its dependencies `deps` (handles of
    /// nodes of `g`), giving the node's handle.
    pub fn add(&mut self, g: u64, deps: &[u64], node: Node) -> Res<u64> {
        let graph = self.graphs.get(&g).ok_or_else(bad_handle)?;
        let count = graph.nodes.len() as u64;
        if deps
            .iter()
            .any(|&d| node_index(g, d).is_none_or(|i| i >= count))
        {
            return Err(Fail::said(
                err::INVALID_VALUE,
                "a graph node's dependency is not a node of that graph",
            ));
        }
        let deps = deps.iter().filter_map(|&d| node_index(g, d)).collect();
        let graph = self.graphs.get_mut(&g).ok_or_else(bad_handle)?;
        graph.nodes.push(node);
        graph.deps.push(deps);
        Ok(node_handle(g, count))
    }

    /// Graph `g`'s nodes.
    pub fn nodes_of(&self, g: u64) -> Res<&[Node]> {
        self.graphs
            .get(&g)
            .map(|g| g.nodes.as_slice())
            .ok_or_else(bad_handle)
    }

    /// `cudaThreadExchangeStreamCaptureMode`: sets `mode`, giving the one
    /// before.
    pub fn exchange_mode(&mut self, mode: i32) -> i32 {
        std::mem::replace(&mut self.mode, mode)
    }

    /// How many nodes graph `g` has, and their handles.
    pub fn nodes(&self, g: u64) -> Res<Vec<u64>> {
        let n = self.graphs.get(&g).ok_or_else(bad_handle)?.nodes.len() as u64;
        Ok((0..n).map(|i| node_handle(g, i)).collect())
    }

    /// `cudaGraphInstantiate`: a copy of the graph's nodes to launch.
    pub fn instantiate(&mut self, g: u64) -> Res<u64> {
        let graph = self.graphs.get(&g).ok_or_else(bad_handle)?.clone();
        let h = self.handle();
        self.execs.insert(h, Exec { origin: g, graph });
        Ok(h)
    }

    /// `cudaGraphExecDestroy`.
    pub fn exec_destroy(&mut self, e: u64) -> Res<()> {
        self.execs.remove(&e).map(|_| ()).ok_or_else(bad_handle)
    }

    /// The nodes an executable graph runs.
    pub fn exec(&self, e: u64) -> Res<&[Node]> {
        self.execs
            .get(&e)
            .map(|x| x.graph.nodes.as_slice())
            .ok_or_else(bad_handle)
    }

    /// `cudaStreamBeginCapture` on stream `s`.
    pub fn begin(&mut self, s: u64) -> Res<()> {
        if s <= 1 {
            // The legacy default stream (0, or `cudaStreamLegacy`) cannot
            // capture (CUDA's cudaErrorStreamCaptureUnsupported).
            return Err(Fail::said(
                err::STREAM_CAPTURE_UNSUPPORTED,
                "cudaStreamBeginCapture: the legacy default stream cannot be captured",
            ));
        }
        if self.capturing.contains_key(&s) {
            return Err(Fail::said(
                err::ILLEGAL_STATE,
                "cudaStreamBeginCapture: the stream is already capturing",
            ));
        }
        let graph = self.create();
        let id = self.next;
        let c = Capture {
            graph,
            origin: s,
            id,
            invalid: false,
        };
        self.capturing.insert(s, c);
        Ok(())
    }

    /// `cudaStreamEndCapture` on stream `s`: the graph it recorded. Every
    /// stream that joined the capture leaves it.
    pub fn end(&mut self, s: u64) -> Res<u64> {
        let c = *self.capturing.get(&s).ok_or_else(|| {
            Fail::said(
                err::ILLEGAL_STATE,
                "cudaStreamEndCapture: the stream is not capturing",
            )
        })?;
        if c.origin != s {
            return Err(Fail::said(
                err::STREAM_CAPTURE_UNMATCHED,
                "cudaStreamEndCapture: the capture began in another stream",
            ));
        }
        self.capturing.retain(|_, k| k.graph != c.graph);
        self.events.retain(|_, g| *g != c.graph);
        if c.invalid {
            self.graphs.remove(&c.graph);
            return Err(Fail::said(
                err::STREAM_CAPTURE_INVALIDATED,
                "cudaStreamEndCapture: the capture was invalidated",
            ));
        }
        Ok(c.graph)
    }

    /// The graph stream `s` records into, if it is capturing.
    pub fn capturing(&self, s: u64) -> Option<u64> {
        self.capturing.get(&s).map(|c| c.graph)
    }

    /// Invalidates the capture stream `s` takes part in (CUDA's
    /// cudaStreamCaptureStatusInvalidated), if any.
    pub fn invalidate(&mut self, s: u64) {
        if let Some(g) = self.capturing(s) {
            for c in self.capturing.values_mut().filter(|c| c.graph == g) {
                c.invalid = true;
            }
        }
    }

    /// `cudaStreamGetCaptureInfo`: the status, the capture's id and its graph.
    pub fn info(&self, s: u64) -> (i32, u64, u64) {
        match self.capturing.get(&s) {
            Some(c) if c.invalid => (CAPTURE_INVALIDATED, c.id, c.graph),
            Some(c) => (CAPTURE_ACTIVE, c.id, c.graph),
            None => (CAPTURE_NONE, 0, 0),
        }
    }

    /// Records `node` into the graph stream `s` captures into; false
    /// where it is not capturing (the caller runs the work now).
    pub fn record(&mut self, s: u64, node: Node) -> bool {
        let Some(g) = self.capturing(s) else {
            return false;
        };
        if let Some(graph) = self.graphs.get_mut(&g) {
            let before = graph.nodes.len() as u64;
            graph.deps.push(before.checked_sub(1).into_iter().collect());
            graph.nodes.push(node);
        }
        true
    }

    /// `cudaEventRecord` of event `e` in stream `s`: true where `s` is
    /// capturing (the event marks a point of the capture, not a time).
    pub fn record_event(&mut self, e: u64, s: u64) -> bool {
        match self.capturing(s) {
            Some(g) => {
                self.events.insert(e, g);
                true
            }
            None => {
                self.events.remove(&e);
                false
            }
        }
    }

    /// `cudaStreamWaitEvent`: a stream waiting on an event of a capture
    /// joins that capture. True where it did.
    pub fn wait_event(&mut self, s: u64, e: u64) -> bool {
        let Some(&g) = self.events.get(&e) else {
            return false;
        };
        let Some(c) = self.capturing.values().find(|c| c.graph == g).copied() else {
            return false;
        };
        self.capturing.entry(s).or_insert(c);
        true
    }
}

/// Why `cudaGraphExecUpdate` refused a graph: the
/// `cudaGraphExecUpdateResult` and the node of the new graph it is about
/// (with the node an edge comes from, where the edges differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpdateRefusal {
    /// `cudaGraphExecUpdateResult`.
    pub result: i32,
    /// The new graph's node (0: none, where the node counts differ).
    pub node: u64,
    /// Where the edges differ: the node the differing edge comes from.
    pub from: u64,
}

impl Graphs {
    /// Graph node `n` (`cudaGraphKernelNodeGetParams` and the like).
    pub fn node_mut(&mut self, n: u64) -> Res<&mut Node> {
        let graph = self.graphs.get_mut(&(n >> 32)).ok_or_else(bad_node)?;
        let i = node_index(n >> 32, n).ok_or_else(bad_node)?;
        graph.nodes.get_mut(i as usize).ok_or_else(bad_node)
    }

    /// The node of executable graph `e` that node `n` of the graph it was
    /// instantiated from became.
    pub fn exec_node_mut(&mut self, e: u64, n: u64) -> Res<&mut Node> {
        let x = self.execs.get_mut(&e).ok_or_else(bad_handle)?;
        let i = node_index(x.origin, n).ok_or_else(bad_node)?;
        x.graph.nodes.get_mut(i as usize).ok_or_else(bad_node)
    }

    /// A pointer per parameter into a copy of `params` (each at its
    /// offset in `offsets`), kept for node `n` until it is asked again
    /// with other bytes, or its graph is destroyed; the array's address.
    pub fn args_view(&mut self, n: u64, params: &[u8], offsets: &[u64]) -> u64 {
        let same = self
            .views
            .get(&n)
            .is_some_and(|(b, p)| **b == *params && p.len() == offsets.len());
        if !same {
            let bytes: Box<[u8]> = params.into();
            let base = bytes.as_ptr() as u64;
            let ptrs = offsets.iter().map(|&o| base + o).collect();
            self.views.insert(n, (bytes, ptrs));
        }
        self.views.get(&n).map_or(0, |(_, p)| p.as_ptr() as u64)
    }

    /// `cudaGraphExecUpdate`: executable graph `e` takes graph `g`'s
    /// node parameters where the two have the same nodes, of the same
    /// kinds, with the same edges, and each change is one CUDA allows
    /// ([`changeable`]; `on_device`: whether an address is device
    /// memory). Otherwise nothing changes and the refusal says why.
    pub fn update(
        &mut self,
        e: u64,
        g: u64,
        on_device: impl Fn(u64) -> bool,
    ) -> Res<Result<(), UpdateRefusal>> {
        let new = self.graphs.get(&g).ok_or_else(bad_handle)?;
        let x = self.execs.get(&e).ok_or_else(bad_handle)?;
        let old = &x.graph;
        let refuse = |result, i: usize, from: Option<u64>| UpdateRefusal {
            result,
            node: node_handle(g, i as u64),
            from: from.map_or(0, |f| node_handle(g, f)),
        };
        if old.nodes.len() != new.nodes.len() {
            return Ok(Err(UpdateRefusal {
                result: TOPOLOGY_CHANGED,
                node: 0,
                from: 0,
            }));
        }
        for (i, (a, b)) in old.deps.iter().zip(&new.deps).enumerate() {
            let mut sa = a.clone();
            let mut sb = b.clone();
            sa.sort_unstable();
            sb.sort_unstable();
            if sa != sb {
                let from = sb.iter().find(|d| !sa.contains(d)).copied();
                return Ok(Err(refuse(TOPOLOGY_CHANGED, i, from)));
            }
        }
        for (i, (a, b)) in old.nodes.iter().zip(&new.nodes).enumerate() {
            if let Err(result) = changeable(a, b, &on_device) {
                return Ok(Err(refuse(result, i, None)));
            }
        }
        let nodes = new.nodes.clone();
        if let Some(x) = self.execs.get_mut(&e) {
            x.graph.nodes = nodes;
        }
        Ok(Ok(()))
    }
}

/// `cudaGraphExecUpdateErrorTopologyChanged`.
const TOPOLOGY_CHANGED: i32 = crate::gen::layout::cudaGraphExecUpdateErrorTopologyChanged;

/// Whether an executable graph's node `a` may become `b`
/// (`cudaGraphExecUpdate`'s rules, as CUDA documents them): the same
/// kind; a kernel keeps its cooperative kind; a 2D memset changes only
/// its address and value; a copy keeps where its memory lies. Else the
/// `cudaGraphExecUpdateResult` saying why not.
pub fn changeable(a: &Node, b: &Node, on_device: &impl Fn(u64) -> bool) -> Result<(), i32> {
    use crate::gen::layout as l;
    if std::mem::discriminant(a) != std::mem::discriminant(b) {
        return Err(l::cudaGraphExecUpdateErrorNodeTypeChanged);
    }
    match (a, b) {
        (
            Node::Kernel {
                cooperative: ca, ..
            },
            Node::Kernel {
                cooperative: cb, ..
            },
        ) if ca != cb => Err(l::cudaGraphExecUpdateErrorNotSupported),
        (Node::Set(a), Node::Set(b))
            if (a.rows > 1 || b.rows > 1)
                && (a.element, a.width, a.rows, a.pitch)
                    != (b.element, b.width, b.rows, b.pitch) =>
        {
            Err(l::cudaGraphExecUpdateErrorParametersChanged)
        }
        (
            &Node::Copy {
                dst: da, src: sa, ..
            },
            &Node::Copy {
                dst: db, src: sb, ..
            },
        ) if on_device(da) != on_device(db) || on_device(sa) != on_device(sb) => {
            Err(l::cudaGraphExecUpdateErrorParametersChanged)
        }
        (Node::Child(x), Node::Child(y)) => {
            if x.len() != y.len() {
                return Err(TOPOLOGY_CHANGED);
            }
            x.iter()
                .zip(y)
                .try_for_each(|(a, b)| changeable(a, b, on_device))
        }
        _ => Ok(()),
    }
}

/// A node's handle: its graph's handle in the high half, its index in the
/// low, so that a dependency is checked to be a node of the same graph.
fn node_handle(g: u64, i: u64) -> u64 {
    (g << 32) | (i + 1)
}

fn node_index(g: u64, h: u64) -> Option<u64> {
    (h >> 32 == g && h & 0xffff_ffff != 0).then(|| (h & 0xffff_ffff) - 1)
}

fn bad_handle() -> Fail {
    Fail::code(err::INVALID_RESOURCE_HANDLE)
}

/// A node handle that names no node (of the graph it must belong to).
fn bad_node() -> Fail {
    Fail::said(err::INVALID_VALUE, "not a node of that graph")
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn nothing(_: *mut std::ffi::c_void) {}

    #[test]
    fn capture_records_in_order_and_forks_join() {
        let mut g = Graphs::default();
        let (s1, s2, ev) = (0x10, 0x20, 0x30);
        assert!(g.begin(0).is_err());
        g.begin(s1).unwrap();
        assert!(g.begin(s1).is_err());
        assert!(g.record(s1, Node::Empty));
        assert!(!g.record(s2, Node::Empty), "s2 has not joined");
        assert!(g.record_event(ev, s1));
        assert!(g.wait_event(s2, ev));
        assert!(g.record(
            s2,
            Node::Host {
                f: nothing,
                data: 2
            }
        ));
        assert!(g.end(s2).is_err(), "only the origin ends a capture");
        assert_eq!(g.info(s2).0, CAPTURE_ACTIVE);
        let graph = g.end(s1).unwrap();
        assert_eq!(g.capturing(s2), None, "joined streams leave with it");
        assert_eq!(g.nodes(graph).unwrap().len(), 2);
        let e = g.instantiate(graph).unwrap();
        assert!(matches!(
            g.exec(e).unwrap(),
            [Node::Empty, Node::Host { data: 2, .. }]
        ));
    }

    #[test]
    fn an_invalidated_capture_ends_without_a_graph() {
        let mut g = Graphs::default();
        g.begin(0x10).unwrap();
        g.invalidate(0x10);
        assert_eq!(g.info(0x10).0, CAPTURE_INVALIDATED);
        assert_eq!(
            g.end(0x10).unwrap_err().code,
            err::STREAM_CAPTURE_INVALIDATED
        );
        assert_eq!(g.info(0x10).0, CAPTURE_NONE);
        assert!(g.graphs.is_empty());
    }

    fn set(value: u32, rows: u64) -> Node {
        Node::Set(Memset {
            dst: 0x1000,
            value,
            element: 4,
            width: 8,
            rows,
            pitch: 32,
        })
    }

    fn kernel(stub: u64, arg: u8, cooperative: bool) -> Node {
        Node::Kernel {
            stub,
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared: 0,
            params: vec![arg; 8],
            cooperative,
        }
    }

    /// A memset, then a kernel after it.
    fn two(g: &mut Graphs, value: u32, arg: u8) -> (u64, u64, u64) {
        let graph = g.create();
        let a = g.add(graph, &[], set(value, 1)).unwrap();
        let b = g.add(graph, &[a], kernel(0x40, arg, false)).unwrap();
        (graph, a, b)
    }

    #[test]
    fn an_executable_graph_takes_a_graph_of_its_shape() {
        let mut g = Graphs::default();
        let (g1, a, b) = two(&mut g, 3, 1);
        let e = g.instantiate(g1).unwrap();
        let (g2, _, b2) = two(&mut g, 5, 2);
        assert_eq!(g.update(e, g2, |_| true).unwrap(), Ok(()));
        assert!(
            matches!(g.exec(e).unwrap(), [Node::Set(Memset { value: 5, .. }), Node::Kernel { params, .. }] if params[0] == 2)
        );
        // The executable graph's nodes still answer to g1's handles.
        assert!(matches!(
            g.exec_node_mut(e, a).unwrap(),
            Node::Set(Memset { value: 5, .. })
        ));
        assert!(g.exec_node_mut(e, b2).is_err(), "a node of another graph");
        assert!(
            g.exec_node_mut(e, node_handle(g1, 2)).is_err(),
            "no third node"
        );
        // g1 itself is as built.
        assert!(matches!(g.node_mut(b).unwrap(), Node::Kernel { params, .. } if params[0] == 1));

        // Another edge: the kernel after nothing.
        let g3 = g.create();
        g.add(g3, &[], set(5, 1)).unwrap();
        let k = g.add(g3, &[], kernel(0x40, 2, false)).unwrap();
        let why = g.update(e, g3, |_| true).unwrap().unwrap_err();
        assert_eq!((why.result, why.node, why.from), (2, k, 0));
        // One node more; a kernel where the memset was; a cooperative kernel;
        // a 1D memset made 2D. Each refused, and the graph left as it was.
        let g4 = g.create();
        g.add(g4, &[], Node::Empty).unwrap();
        assert_eq!(g.update(e, g4, |_| true).unwrap().unwrap_err().result, 2);
        let g5 = g.create();
        let n = g.add(g5, &[], kernel(0x40, 2, false)).unwrap();
        g.add(g5, &[n], kernel(0x40, 2, false)).unwrap();
        let why = g.update(e, g5, |_| true).unwrap().unwrap_err();
        assert_eq!((why.result, why.node), (3, n));
        let g6 = g.create();
        let n = g.add(g6, &[], set(5, 1)).unwrap();
        g.add(g6, &[n], kernel(0x40, 2, true)).unwrap();
        assert_eq!(g.update(e, g6, |_| true).unwrap().unwrap_err().result, 6);
        let g7 = g.create();
        let n = g.add(g7, &[], set(5, 2)).unwrap();
        g.add(g7, &[n], kernel(0x40, 2, false)).unwrap();
        assert_eq!(g.update(e, g7, |_| true).unwrap().unwrap_err().result, 5);
        assert!(matches!(
            g.exec(e).unwrap()[0],
            Node::Set(Memset {
                value: 5,
                rows: 1,
                ..
            })
        ));
        assert!(g.update(e, 0x99, |_| true).is_err(), "no such graph");
    }

    #[test]
    fn a_copy_keeps_where_its_memory_lies() {
        let copy = |dst, src| Node::Copy {
            dst,
            src,
            n: 4,
            kind: 4,
        };
        let device = |a: u64| a >= 0x1000;
        assert_eq!(
            changeable(&copy(0x1000, 0x10), &copy(0x2000, 0x20), &device),
            Ok(())
        );
        assert_eq!(
            changeable(&copy(0x1000, 0x10), &copy(0x10, 0x20), &device),
            Err(5)
        );
        assert_eq!(changeable(&set(1, 1), &set(2, 1), &device), Ok(()));
        assert_eq!(
            changeable(&Node::EventRecord(1), &Node::EventWait(1), &device),
            Err(3)
        );
    }

    #[test]
    fn captured_nodes_follow_each_other_and_views_stay() {
        let mut g = Graphs::default();
        g.begin(0x10).unwrap();
        g.record(0x10, Node::EventRecord(0x77));
        g.record(0x10, kernel(0x40, 9, false));
        let graph = g.end(0x10).unwrap();
        assert_eq!(g.graphs[&graph].deps, vec![vec![], vec![0]]);
        let n = node_handle(graph, 1);
        let v = g.args_view(n, &[1, 2, 3, 4, 5, 6, 7, 8], &[0, 4]);
        assert_eq!(
            v,
            g.args_view(n, &[1, 2, 3, 4, 5, 6, 7, 8], &[0, 4]),
            "kept"
        );
        let (bytes, ptrs) = &g.views[&n];
        assert_eq!(**ptrs, [bytes.as_ptr() as u64, bytes.as_ptr() as u64 + 4]);
        g.destroy(graph).unwrap();
        assert!(g.views.is_empty());
    }

    #[test]
    fn dependencies_are_nodes_of_the_same_graph() {
        let mut g = Graphs::default();
        let (a, b) = (g.create(), g.create());
        let n = g.add(a, &[], Node::Empty).unwrap();
        assert!(g.add(a, &[n], Node::Empty).is_ok());
        assert!(g.add(b, &[n], Node::Empty).is_err());
        assert!(g.add(a, &[node_handle(a, 7)], Node::Empty).is_err());
        assert!(g.add(a, &[0], Node::Empty).is_err());
        assert_eq!(g.nodes(a).unwrap().len(), 2);
        assert!(g.destroy(a).is_ok());
        assert!(g.destroy(a).is_err());
    }
}
