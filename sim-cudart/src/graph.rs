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
    Set {
        /// Destination.
        dst: u64,
        /// The byte value (elements of 2 or 4 bytes: `element`).
        value: u32,
        /// Bytes of one element: 1, 2 or 4.
        element: u32,
        /// Elements a row.
        width: u64,
        /// Rows.
        rows: u64,
        /// Bytes between rows.
        pitch: u64,
    },
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
    /// Another graph's nodes, as `cudaGraphLaunch` of an executable
    /// graph into a capturing stream records them.
    Child(Vec<Node>),
}

/// The graphs, executable graphs and captures of a runtime.
#[derive(Debug, Default)]
pub struct Graphs {
    /// Graphs by handle: their nodes in the order added.
    graphs: HashMap<u64, Vec<Node>>,
    /// Executable graphs by handle: a copy of the graph's nodes when it
    /// was instantiated (a later change to the graph does not reach it).
    execs: HashMap<u64, Vec<Node>>,
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
        self.graphs.insert(h, Vec::new());
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
        self.graphs.remove(&g).map(|_| ()).ok_or_else(bad_handle)
    }

    /// Adds `node` to graph `g` after its dependencies `deps` (handles of
    /// nodes of `g`), giving the node's handle.
    pub fn add(&mut self, g: u64, deps: &[u64], node: Node) -> Res<u64> {
        let nodes = self.graphs.get(&g).ok_or_else(bad_handle)?;
        let count = nodes.len() as u64;
        if deps
            .iter()
            .any(|&d| node_index(g, d).is_none_or(|i| i >= count))
        {
            return Err(Fail::said(
                err::INVALID_VALUE,
                "a graph node's dependency is not a node of that graph",
            ));
        }
        self.graphs.get_mut(&g).ok_or_else(bad_handle)?.push(node);
        Ok(node_handle(g, count))
    }

    /// Graph `g`'s nodes.
    pub fn nodes_of(&self, g: u64) -> Res<&[Node]> {
        self.graphs
            .get(&g)
            .map(Vec::as_slice)
            .ok_or_else(bad_handle)
    }

    /// `cudaThreadExchangeStreamCaptureMode`: sets `mode`, giving the one
    /// before.
    pub fn exchange_mode(&mut self, mode: i32) -> i32 {
        std::mem::replace(&mut self.mode, mode)
    }

    /// How many nodes graph `g` has, and their handles.
    pub fn nodes(&self, g: u64) -> Res<Vec<u64>> {
        let n = self.graphs.get(&g).ok_or_else(bad_handle)?.len() as u64;
        Ok((0..n).map(|i| node_handle(g, i)).collect())
    }

    /// `cudaGraphInstantiate`: a copy of the graph's nodes to launch.
    pub fn instantiate(&mut self, g: u64) -> Res<u64> {
        let nodes = self.graphs.get(&g).ok_or_else(bad_handle)?.clone();
        let h = self.handle();
        self.execs.insert(h, nodes);
        Ok(h)
    }

    /// `cudaGraphExecDestroy`.
    pub fn exec_destroy(&mut self, e: u64) -> Res<()> {
        self.execs.remove(&e).map(|_| ()).ok_or_else(bad_handle)
    }

    /// The nodes an executable graph runs.
    pub fn exec(&self, e: u64) -> Res<&[Node]> {
        self.execs.get(&e).map(Vec::as_slice).ok_or_else(bad_handle)
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
        if let Some(nodes) = self.graphs.get_mut(&g) {
            nodes.push(node);
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
