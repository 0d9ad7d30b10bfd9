//! A launch made ready to run: the kernel found, its parameters packed,
//! every variable placed, and the reconvergence point of every branch.

use crate::error::KernelError;
use crate::memory::{initial_bytes, layout, space_of, Global};
use sim_isa::Space;
use sim_module::{Body, Cfg, Function, Launch, Module, StateSpace, Variable};

/// Most bytes of local memory one block may declare (its threads' in all).
pub const MAX_SPACE_BYTES: u64 = 1 << 28;
/// Most bytes of `.const` variables: the PTX ISA manual's "constant memory
/// is restricted in size, currently limited to 64 KB" (state spaces,
/// `.const`); ptxas 13.0 on sm_90: "File uses too much global constant data
/// (0x10001 bytes, 0x10000 max)".
pub const MAX_CONST_BYTES: u64 = 1 << 16;
/// Most bytes of `.global` variables in all (the launch format's limit for
/// one buffer).
pub const MAX_GLOBAL_VARS: u64 = sim_module::launch::MAX_BUFFER_BYTES;
/// Most bytes of `.local` variables per thread: the CUDA C Programming
/// Guide's "maximum amount of local memory per thread", 512 KB.
pub const MAX_LOCAL_PER_THREAD: u64 = 512 << 10;
/// Most bytes of static `.shared` variables per block from sm_20 on: ptxas
/// 13.0 on sm_90: "Entry function 'k' uses too much shared data (0xc001
/// bytes, 0xc000 max)". Before sm_20 a block had 16 KiB.
pub const MAX_STATIC_SHARED: u64 = 48 << 10;

const CONST_WHY: &str = ".const variables need at most 65536 bytes in all, one constant bank as on the hardware (ptxas: too much global constant data)";
const SHARED_WHY: &str = "a block's static shared memory is at most 48 KiB from sm_20 on, 16 KiB before (ptxas: too much shared data)";
const LOCAL_WHY: &str = "local memory is at most 512 KiB per thread (CUDA C Programming Guide, technical specifications)";
const GLOBAL_WHY: &str =
    ".global variables need at most 1 GiB in all (the simulator's bound, as for one launch buffer)";

/// The static shared memory a block of `module`'s target may declare.
fn max_static_shared(module: &Module) -> u64 {
    let sm = module
        .target
        .as_ref()
        .and_then(|t| sim_isa::Target::parse(&t.arch).ok())
        .map_or(90, |t| t.sm);
    if sm < 20 {
        16 << 10
    } else {
        MAX_STATIC_SHARED
    }
}

/// Every space's variables checked, one by one, before any of them is
/// allocated: `globals` laid out at `g_offs`, the others by `in_space`.
pub(crate) fn check_declarations<'a>(
    module: &Module,
    globals: &[&Variable],
    g_offs: &[u64],
    in_space: &dyn Fn(StateSpace) -> Vec<&'a Variable>,
) -> Result<(), KernelError> {
    let file = module.file.as_str();
    check_space(
        file,
        ".global",
        globals,
        g_offs,
        (MAX_GLOBAL_VARS, GLOBAL_WHY),
    )?;
    for (s, name, limit) in [
        (StateSpace::Const, ".const", (MAX_CONST_BYTES, CONST_WHY)),
        (
            StateSpace::Shared,
            ".shared",
            (max_static_shared(module), SHARED_WHY),
        ),
        (
            StateSpace::Local,
            ".local",
            (MAX_LOCAL_PER_THREAD, LOCAL_WHY),
        ),
    ] {
        let vars: Vec<&Variable> = in_space(s).into_iter().filter(|v| !is_dynamic(v)).collect();
        check_space(file, name, &vars, &layout(&vars, 0).0, limit)?;
    }
    Ok(())
}

/// Refuses the first of `vars` (laid out at `offs`) that ends past
/// `limit`: alone or with the variables before it. Only offsets are read,
/// so nothing of the declared sizes is allocated.
fn check_space(
    file: &str,
    space: &'static str,
    vars: &[&Variable],
    offs: &[u64],
    (limit, why): (u64, &'static str),
) -> Result<(), KernelError> {
    for (v, &o) in vars.iter().zip(offs) {
        let total = o.saturating_add(v.size);
        if total > limit {
            return Err(KernelError::Declaration {
                file: file.to_string(),
                line: v.pos.line,
                name: v.name.clone(),
                space,
                size: v.size,
                total,
                limit,
                why,
            });
        }
    }
    Ok(())
}

/// The kernel of a launch, with its memory laid out.
pub struct Prepared<'m> {
    /// The module.
    pub module: &'m Module,
    /// The kernel.
    pub func: &'m Function,
    /// Its body.
    pub body: &'m Body,
    /// Per statement: for a branch, where its paths reconverge
    /// (`statements.len()` for the exit).
    pub reconv: Vec<usize>,
    /// Per variable id of the body's symbols: space and address.
    pub vars: Vec<Option<(Space, u64)>>,
    /// The parameter buffer.
    pub params: Vec<u8>,
    /// `.const` bytes.
    pub consts: Vec<u8>,
    /// Bytes of shared memory per block.
    pub shared: u64,
    /// Initial shared contents (initialisers of `.shared` variables), up to
    /// the last initialised byte; the rest of `shared` starts zeroed.
    pub shared_init: Vec<u8>,
    /// Bytes of local memory per thread.
    pub local: u64,
    /// The global space at launch (buffers, then `.global` variables).
    pub global: Global,
    /// Address of each launch buffer.
    pub buffers: Vec<u64>,
}

fn too_big(what: &str, n: u64) -> KernelError {
    KernelError::Limit(format!(
        "{what} needs {n} bytes, more than the limit of {MAX_SPACE_BYTES}"
    ))
}

/// A module's `.const` bank: each variable's name and offset, and the bytes.
pub(crate) type ConstBank = (Vec<(String, u64)>, Vec<u8>);

/// The state a launch starts from, besides its module: the global space,
/// the parameter buffer, and where the module's `.global` variables (and,
/// on a [`crate::device::Device`], the `.const` bank) already are.
pub(crate) struct Start {
    /// The global space (with every module-level `.global` variable).
    pub global: Global,
    /// Address of each launch-file buffer (none on a device).
    pub buffers: Vec<u64>,
    /// The parameter buffer.
    pub params: Vec<u8>,
    /// Each `.global` variable's name and address.
    pub globals: Vec<(String, u64)>,
    /// The module's `.const` bank as it stands (names, offsets, bytes):
    /// its variables' bytes replace their initialisers.
    pub consts: Option<ConstBank>,
    /// Threads per block (local memory is bounded per block).
    pub block_threads: u64,
    /// Bytes of dynamic shared memory per block.
    pub dynamic_shared: u64,
}

/// The `.entry` named `entry` of `module` and its body.
pub(crate) fn entry_of<'m>(
    module: &'m Module,
    entry: &str,
) -> Result<(&'m Function, &'m Body), KernelError> {
    let func = module.function(entry).ok_or_else(|| KernelError::NoEntry {
        file: module.file.clone(),
        entry: entry.to_string(),
        kernels: module
            .entries()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    let body = func.body.as_ref().ok_or_else(|| KernelError::NoEntry {
        file: module.file.clone(),
        entry: entry.to_string(),
        kernels: String::new(),
    })?;
    Ok((func, body))
}

/// The variables of `space` a kernel sees: the module's, then its body's.
pub(crate) fn vars_in<'m>(module: &'m Module, body: &'m Body, s: StateSpace) -> Vec<&'m Variable> {
    module
        .variables
        .iter()
        .chain(&body.variables)
        .filter(|v| v.space == s)
        .collect()
}

/// An `.extern` unsized `.shared` array: a name for the block's dynamic
/// shared memory.
pub(crate) fn is_dynamic(v: &Variable) -> bool {
    v.space == StateSpace::Shared && v.external && v.size == 0
}

/// Where dynamic shared memory starts after `end` bytes of static shared
/// memory: at the larger of 16 and the `.extern` arrays' alignment, as
/// ptxas 13.0 places it on sm_90 (12 static bytes and `.align 16`, or 4
/// and `.align 4`: offset 0x10; 40 and `.align 32`: 0x40, in the SASS's
/// shared addresses).
pub(crate) fn dynamic_offset(end: u64, dynamic: &[&Variable]) -> u64 {
    let align = dynamic
        .iter()
        .map(|v| u64::from(v.align.unwrap_or(1)))
        .fold(16, u64::max);
    end.next_multiple_of(align)
}

impl<'m> Prepared<'m> {
    /// Finds `launch.entry` in `module`, packs the arguments (`data`: each
    /// buffer's initial bytes) and places every variable.
    pub fn new(
        module: &'m Module,
        launch: &Launch,
        data: Vec<Vec<u8>>,
    ) -> Result<Prepared<'m>, KernelError> {
        let (func, body) = entry_of(module, &launch.entry)?;
        let mut global = Global::default();
        let buffers: Vec<u64> = launch
            .buffers
            .iter()
            .zip(data)
            .map(|(b, d)| global.alloc(&b.name, d))
            .collect();
        let params = pack_params(func, launch, &buffers)?;
        // Globals: addresses known before their initialisers, which may name each other.
        let globals = vars_in(module, body, StateSpace::Global);
        let (g_offs, g_end) = layout(&globals, 0);
        let g_base = global
            .regions
            .last()
            .map_or(crate::memory::GLOBAL_BASE, |r| {
                (r.base + r.bytes.len() as u64 + 256).next_multiple_of(256)
            });
        let gaddr: Vec<(String, u64)> = globals
            .iter()
            .zip(&g_offs)
            .map(|(v, o)| (v.name.clone(), g_base + o))
            .collect();
        check_declarations(module, &globals, &g_offs, &|s| vars_in(module, body, s))?;
        if !globals.is_empty() {
            let funcs = module.function_addresses();
            let lookup = |n: &str| {
                let var = gaddr.iter().find(|a| a.0 == n).map(|a| a.1);
                var.or_else(|| funcs.iter().find(|f| f.0 == n).map(|f| f.1))
            };
            global.alloc(
                "(.global variables)",
                global_bytes(&globals, &g_offs, g_end, &lookup),
            );
        }
        let start = Start {
            global,
            buffers,
            params,
            globals: gaddr,
            consts: None,
            block_threads: launch.block_threads(),
            dynamic_shared: u64::from(launch.dynamic_shared),
        };
        Prepared::place(module, func, body, start)
    }

    /// Places every variable of `func` (whose `.global` variables `start`
    /// has placed) and finds the reconvergence points.
    pub(crate) fn place(
        module: &'m Module,
        func: &'m Function,
        body: &'m Body,
        start: Start,
    ) -> Result<Prepared<'m>, KernelError> {
        let in_space = |s: StateSpace| vars_in(module, body, s);
        let mut addr: Vec<(String, Space, u64)> = start
            .globals
            .iter()
            .map(|(n, a)| (n.clone(), Space::Global, *a))
            .collect();
        let statics = |s: StateSpace| -> Vec<&Variable> {
            in_space(s).into_iter().filter(|v| !is_dynamic(v)).collect()
        };
        let mut ends = [0u64; 3];
        for (k, s) in [StateSpace::Const, StateSpace::Shared, StateSpace::Local]
            .into_iter()
            .enumerate()
        {
            let vars = statics(s);
            let (offs, end) = layout(&vars, 0);
            for (v, o) in vars.iter().zip(offs) {
                addr.push((v.name.clone(), space_of(s), o));
            }
            ends[k] = end;
        }
        // Dynamic shared memory: every `.extern` unsized array names it.
        let dynamic: Vec<&Variable> = in_space(StateSpace::Shared)
            .into_iter()
            .filter(|v| is_dynamic(v))
            .collect();
        let mut shared = ends[1];
        if !dynamic.is_empty() || start.dynamic_shared > 0 {
            let at = dynamic_offset(shared, &dynamic);
            for v in &dynamic {
                addr.push((v.name.clone(), Space::Shared, at));
            }
            shared = at.saturating_add(start.dynamic_shared);
        }
        let local = ends[2];
        // A function's name stands for its address (`mov.u64 %rd1, f`).
        for (name, a) in module.function_addresses() {
            if !addr.iter().any(|x| x.0 == name) {
                addr.push((name.to_string(), Space::Global, a));
            }
        }
        let lookup = |n: &str| addr.iter().find(|a| a.0 == n).map(|a| a.2);
        let fill = |s: StateSpace, size: u64| -> Vec<u8> {
            let mut b = vec![0u8; size as usize];
            // A variable without an initialiser is zeros, as `b` already is.
            for v in statics(s).into_iter().filter(|v| v.init.is_some()) {
                if let Some(o) = lookup(&v.name) {
                    let init = initial_bytes(v, &lookup);
                    b[o as usize..o as usize + init.len()].copy_from_slice(&init);
                }
            }
            b
        };
        // Per block: every thread's local memory (the engine then bounds
        // the blocks resident at once, `engine::MAX_RESIDENT_LOCAL`).
        let block_local = local.saturating_mul(start.block_threads);
        if block_local > MAX_SPACE_BYTES {
            return Err(too_big("local memory of one block", block_local));
        }
        let mut consts = fill(StateSpace::Const, ends[0]);
        if let Some((names, bank)) = &start.consts {
            // The bank as the host last wrote it, over the initialisers.
            for v in statics(StateSpace::Const) {
                let (Some(o), Some(b)) = (lookup(&v.name), names.iter().find(|n| n.0 == v.name))
                else {
                    continue;
                };
                let (o, b, n) = (o as usize, b.1 as usize, v.size as usize);
                if let (Some(d), Some(s)) = (consts.get_mut(o..o + n), bank.get(b..b + n)) {
                    d.copy_from_slice(s);
                }
            }
        }
        // Only as far as the last initialised byte (in practice nothing:
        // ptxas takes no initialiser on `.shared`): a block's shared memory
        // is zeroed to `shared` bytes when it starts, after the engine has
        // checked that an SM holds that much.
        let init_end = statics(StateSpace::Shared)
            .iter()
            .filter(|v| v.init.is_some())
            .filter_map(|v| lookup(&v.name).map(|o| o + v.size))
            .max()
            .unwrap_or(0);
        let shared_init = fill(StateSpace::Shared, init_end.min(shared));
        for p in &func.params {
            addr.push((p.name.clone(), Space::Param, p.offset));
        }
        let vars = body
            .symbols
            .vars()
            .iter()
            .map(|n| addr.iter().find(|a| &a.0 == n).map(|a| (a.1, a.2)))
            .collect();
        let cfg = Cfg::new(body);
        let n = body.statements.len();
        let reconv = (0..n).map(|i| cfg.reconvergence(i).unwrap_or(n)).collect();
        Ok(Prepared {
            module,
            func,
            body,
            reconv,
            vars,
            params: start.params,
            consts,
            shared,
            shared_init,
            local,
            global: start.global,
            buffers: start.buffers,
        })
    }
}

/// The initial bytes of the `.global` variables `globals`, laid out at
/// `offs` in `end` bytes; addresses of symbols resolve through `lookup`.
pub(crate) fn global_bytes(
    globals: &[&Variable],
    offs: &[u64],
    end: u64,
    lookup: &dyn Fn(&str) -> Option<u64>,
) -> Vec<u8> {
    // Zeroed pages the OS hands out as they are touched: the bytes cost
    // what the initialisers and the kernel write, not the declared sizes.
    let mut bytes = vec![0u8; end as usize];
    for (v, o) in globals.iter().zip(offs).filter(|(v, _)| v.init.is_some()) {
        if let Some(out) = bytes.get_mut(*o as usize..(*o + v.size) as usize) {
            crate::memory::write_initial(v, lookup, out);
        }
    }
    bytes
}

/// The module of a launch as it runs: `src` parsed, with every call of
/// `entry` to a device function inlined (see `sim_module::inline`).
pub fn load_module(src: &str, name: &str, entry: &str) -> Result<Module, sim_module::ModuleError> {
    let module = sim_module::parse_module(src, name)?;
    Ok(sim_module::inline_calls(src, &module, entry)?.unwrap_or(module))
}

/// The parameter buffer: each argument at its parameter's offset.
fn pack_params(func: &Function, launch: &Launch, buffers: &[u64]) -> Result<Vec<u8>, KernelError> {
    if func.params.len() != launch.params.len() {
        return Err(KernelError::ParamCount {
            entry: func.name.clone(),
            want: func.params.len(),
            got: launch.params.len(),
        });
    }
    let size = func
        .params
        .iter()
        .map(|p| p.offset + p.size)
        .max()
        .unwrap_or(0);
    let mut out = vec![0u8; size as usize];
    for (index, (p, v)) in func.params.iter().zip(&launch.params).enumerate() {
        let bytes = v.bytes(buffers);
        if let Err(why) = v.binds_to(p) {
            return Err(KernelError::ParamType {
                entry: func.name.clone(),
                index,
                name: p.name.clone(),
                mismatch: format!(
                    "{} ({} bytes); the launch gives {} ({} bytes): {why}",
                    sim_module::launch::declared(p),
                    p.size,
                    v.kind(),
                    bytes.len()
                ),
            });
        }
        let at = p.offset as usize;
        out[at..at + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(out)
}
