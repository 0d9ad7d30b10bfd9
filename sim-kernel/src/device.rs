//! A device whose global memory and modules persist across launches, as a
//! CUDA context's do: what a CUDA runtime stands on (`cudaMalloc`,
//! `cudaMemcpy`, module registration, `cudaLaunchKernel`).
//!
//! - Memory: [`Device::malloc`] places allocations in the device's own
//!   address range from [`DEVICE_BASE`] (clear of Linux x86-64 host heap
//!   and mmap addresses, 0x55xx_xxxx_xxxx and 0x7fxx_xxxx_xxxx, so a host
//!   pointer is never mistaken for a device one), 256-byte aligned with a
//!   256-byte gap after each (an access just past one faults), lowest
//!   address first. [`Device::malloc_at`] places one at a caller-chosen
//!   address (memory whose host address is its device address). Only the
//!   bytes allocated are held, zero-filled, up to a cap
//!   ([`DEFAULT_MEMORY_CAP`], [`Device::set_memory_cap`]).
//! - Modules: [`Device::load_module`] parses a module once, places its
//!   `.global` variables (initialised) in the global space and keeps its
//!   `.const` bank; an entry that calls device functions is inlined once,
//!   on its first launch or query, and kept.
//! - Launches: [`Device::launch`] runs a kernel on the engine with the
//!   device's global memory moved in and back out (never copied), so its
//!   writes, to allocations and to `.global` variables, are there for the
//!   next launch of any kernel.
//! - Errors: a launch refused before it runs (a bad configuration, a
//!   statement the target cannot run) leaves the device as it was. Once a
//!   kernel has started, an error stopping it (a fault, a trap, the
//!   instruction limit) leaves the device *broken*, as a CUDA context is
//!   after `cudaErrorIllegalAddress`: that launch returns the kernel's own
//!   error and every later call returns [`DeviceError::Broken`] with it.

mod mem;

use crate::engine::{self, Warps};
use crate::error::KernelError;
use crate::global::Global;
use crate::memtime::Gpu;
use crate::prepare::{self, Prepared, Start};
use crate::run::{take_timed, RunOptions};
use crate::timing::Timed;
use sim_module::{Function, Launch, Module, ModuleError, StateSpace};
use std::collections::HashMap;
use std::path::PathBuf;

pub use mem::{DEFAULT_MEMORY_CAP, DEVICE_BASE, DEVICE_SPACE};

/// A module loaded on a [`Device`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModuleId(pub usize);

/// A kernel parameter as the packed parameter buffer holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSlot {
    /// Its name in the `.entry`.
    pub name: String,
    /// Byte offset in the buffer.
    pub offset: u64,
    /// Bytes.
    pub size: u64,
    /// Alignment (its `.align`, else its type's size).
    pub align: u64,
    /// Its whole `.param` declaration (type, array length, `.ptr`), so
    /// that a caller binding values to it (the Python package) need not
    /// parse the module a second time.
    pub decl: sim_module::Param,
}

/// Where a module's variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolSpace {
    /// `.global`: an address in the global space.
    Global,
    /// `.const`: an offset in the module's constant bank.
    Const,
}

/// A module's `.global` or `.const` variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolInfo {
    /// Its space.
    pub space: SymbolSpace,
    /// Device address ([`SymbolSpace::Global`]) or offset in the module's
    /// constant bank ([`SymbolSpace::Const`]).
    pub addr: u64,
    /// Bytes.
    pub size: u64,
}

/// What a kernel needs (`cudaFuncGetAttributes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FuncInfo {
    /// Bytes of static shared memory per block.
    pub static_shared: u64,
    /// Bytes of `.const` variables it sees.
    pub const_bytes: u64,
    /// Bytes of local memory per thread.
    pub local_per_thread: u64,
    /// Bytes of its parameter buffer.
    pub params_bytes: u64,
    /// Most threads a block: `.maxntid`'s (or `.reqntid`'s) product, else 1024.
    pub max_threads: u32,
}

/// A launch that ran.
#[derive(Clone, Debug)]
pub struct Launched {
    /// Warps in the grid.
    pub warps: u64,
    /// Warp-instructions executed.
    pub instructions: u64,
    /// Cycles and the statistics of the run.
    pub timed: Timed,
    /// What device `printf` printed ([`crate::printf`]).
    pub printf: Vec<u8>,
    /// `printf` calls dropped past [`crate::printf::FIFO_BYTES`].
    pub printf_dropped: u64,
}

/// Why a device call failed.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// More memory than the device's cap.
    #[error(
        "out of device memory: {bytes} more bytes with {held} held, more than the cap of {cap}"
    )]
    OutOfMemory {
        /// Bytes asked for.
        bytes: u64,
        /// Bytes already held.
        held: u64,
        /// The cap.
        cap: u64,
    },
    /// An address that is not what the call needs.
    #[error("invalid device pointer {addr:#x}: {why}")]
    InvalidPointer {
        /// The address.
        addr: u64,
        /// What it should have been.
        why: String,
    },
    /// A region outside every allocation, or across two.
    #[error("{what} of {n} bytes at {addr:#x}: {why}")]
    OutOfBounds {
        /// The operation (`write`, `copy source`).
        what: &'static str,
        /// The address.
        addr: u64,
        /// Bytes.
        n: u64,
        /// Which allocation it leaves, if any.
        why: String,
    },
    /// [`Device::malloc_at`] over memory already allocated.
    #[error("{bytes} bytes at {addr:#x} overlap the allocation of {len} bytes at {base:#x}")]
    Overlap {
        /// The address asked for.
        addr: u64,
        /// Bytes asked for.
        bytes: u64,
        /// The allocation in the way.
        base: u64,
        /// Its bytes.
        len: u64,
    },
    /// No module of that id.
    #[error("no module {0} is loaded")]
    NoModule(usize),
    /// The module does not parse (or its calls do not inline).
    #[error(transparent)]
    Module(#[from] ModuleError),
    /// No `.global` or `.const` variable of that name.
    #[error("{module}: no .global or .const variable named '{name}'")]
    NoSymbol {
        /// The module.
        module: String,
        /// The name.
        name: String,
    },
    /// Bytes past a variable's end.
    #[error("{module}: {n} bytes at offset {offset} of '{name}' pass its end ({size} bytes)")]
    SymbolRange {
        /// The module.
        module: String,
        /// The variable.
        name: String,
        /// The offset asked for.
        offset: u64,
        /// Bytes.
        n: u64,
        /// Its size.
        size: u64,
    },
    /// The parameter buffer is not the kernel's size.
    #[error("{entry} takes {want} bytes of parameters; the launch gives {got}")]
    ParamsSize {
        /// The kernel.
        entry: String,
        /// Its parameter buffer's size.
        want: u64,
        /// The launch's.
        got: u64,
    },
    /// A grid or block the hardware does not launch.
    #[error("launch of {entry}: {why}")]
    Config {
        /// The kernel.
        entry: String,
        /// What is wrong.
        why: String,
    },
    /// The launch (or a module's declarations) refused, or the kernel
    /// stopped: a fault or trap keeps its precise message. Boxed: a
    /// device call's result stays small.
    #[error(transparent)]
    Kernel(Box<KernelError>),
    /// An earlier kernel stopped with an error: the device takes no more
    /// calls, as a CUDA context after a fault.
    #[error("the device stopped at an earlier kernel error: {0}")]
    Broken(String),
}

impl From<KernelError> for DeviceError {
    fn from(e: KernelError) -> DeviceError {
        DeviceError::Kernel(Box::new(e))
    }
}

/// A loaded module.
struct Loaded {
    name: String,
    src: String,
    module: Module,
    /// Per entry that calls device functions: its module with the calls
    /// inlined.
    inlined: HashMap<String, Module>,
    /// `.global` variables: name, address, bytes.
    globals: Vec<(String, u64, u64)>,
    /// `.const` variables: name, offset in `bank`, bytes.
    consts: Vec<(String, u64, u64)>,
    /// The constant bank.
    bank: Vec<u8>,
}

impl Loaded {
    /// The module a launch of `entry` runs (inlined if it calls functions).
    fn for_entry(&self, entry: &str) -> &Module {
        self.inlined.get(entry).unwrap_or(&self.module)
    }
}

/// A simulated GPU whose memory and modules persist across launches.
pub struct Device {
    opts: RunOptions,
    global: Global,
    mem: mem::Book,
    modules: Vec<Loaded>,
    broken: Option<String>,
    /// Bytes of device `malloc`'s heap, made at the first launch that
    /// calls it (`crate::heap`).
    heap_bytes: u64,
}

impl Device {
    /// An empty device that runs launches with `opts`.
    pub fn new(opts: RunOptions) -> Device {
        Device {
            opts,
            global: Global::default(),
            mem: mem::Book::new(DEFAULT_MEMORY_CAP),
            modules: Vec::new(),
            broken: None,
            heap_bytes: crate::heap::DEFAULT_HEAP_BYTES,
        }
    }

    /// Bytes of device `malloc`'s heap (`cudaLimitMallocHeapSize`).
    pub fn heap_bytes(&self) -> u64 {
        self.heap_bytes
    }

    /// Sets them; false (nothing changed) once a kernel that calls
    /// `malloc` or `free` has run, as CUDA refuses then.
    pub fn set_heap_bytes(&mut self, bytes: u64) -> bool {
        if self.global.heap.is_some() {
            return false;
        }
        self.heap_bytes = bytes;
        true
    }

    /// How launches run.
    pub fn options(&self) -> &RunOptions {
        &self.opts
    }

    /// Changes how later launches run.
    pub fn set_options(&mut self, opts: RunOptions) {
        self.opts = opts;
    }

    /// Most bytes the device holds at once (allocations and `.global`
    /// variables); [`DEFAULT_MEMORY_CAP`] until set.
    pub fn set_memory_cap(&mut self, bytes: u64) {
        self.mem.cap = bytes;
    }

    /// Bytes held now.
    pub fn memory_held(&self) -> u64 {
        self.mem.held
    }

    /// The message of the kernel error that broke the device, if one did.
    pub fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    fn alive(&self) -> Result<(), DeviceError> {
        match &self.broken {
            Some(m) => Err(DeviceError::Broken(m.clone())),
            None => Ok(()),
        }
    }

    fn loaded(&self, m: ModuleId) -> Result<&Loaded, DeviceError> {
        self.modules.get(m.0).ok_or(DeviceError::NoModule(m.0))
    }

    /// Parses `ptx` (named `name` in errors) once, places its `.global`
    /// variables (initialised) in the global space and keeps its `.const`
    /// bank.
    pub fn load_module(&mut self, name: &str, ptx: &str) -> Result<ModuleId, DeviceError> {
        self.alive()?;
        let module = sim_module::parse_module(ptx, name)?;
        let module_vars = |s: StateSpace| -> Vec<&sim_module::Variable> {
            module.variables.iter().filter(|v| v.space == s).collect()
        };
        let globals = module_vars(StateSpace::Global);
        let (g_offs, g_end) = crate::memory::layout(&globals, 0);
        let consts = module_vars(StateSpace::Const);
        let (c_offs, c_end) = crate::memory::layout(&consts, 0);
        prepare::check_declarations(&module, &globals, &g_offs, &|s| {
            if s == StateSpace::Const {
                module_vars(s)
            } else {
                Vec::new()
            }
        })?;
        let g_base = if globals.is_empty() {
            None
        } else {
            Some(self.mem.place(&self.global, g_end)?)
        };
        let gtab: Vec<(String, u64, u64)> = globals
            .iter()
            .zip(&g_offs)
            .map(|(v, o)| (v.name.clone(), g_base.unwrap_or(0) + o, v.size))
            .collect();
        let funcs = module.function_addresses();
        let lookup = |n: &str| {
            let var = gtab.iter().find(|g| g.0 == n).map(|g| g.1);
            var.or_else(|| funcs.iter().find(|f| f.0 == n).map(|f| f.1))
        };
        if let Some(base) = g_base {
            let bytes = prepare::global_bytes(&globals, &g_offs, g_end, &lookup);
            let what = format!("(.global variables of {name})");
            self.mem
                .insert(&mut self.global, &what, base, bytes, true)?;
        }
        let mut bank = vec![0u8; c_end as usize];
        for (v, o) in consts.iter().zip(&c_offs) {
            let init = crate::memory::initial_bytes(v, &lookup);
            bank[*o as usize..*o as usize + init.len()].copy_from_slice(&init);
        }
        let ctab = consts
            .iter()
            .zip(&c_offs)
            .map(|(v, o)| (v.name.clone(), *o, v.size))
            .collect();
        self.modules.push(Loaded {
            name: name.to_string(),
            src: ptx.to_string(),
            module,
            inlined: HashMap::new(),
            globals: gtab,
            consts: ctab,
            bank,
        });
        Ok(ModuleId(self.modules.len() - 1))
    }

    /// The module's kernels, in file order.
    pub fn entries(&self, m: ModuleId) -> Vec<String> {
        self.loaded(m).map_or(Vec::new(), |l| {
            l.module.entries().map(|f| f.name.clone()).collect()
        })
    }

    /// The names of the module's `.global` and `.const` variables.
    pub fn symbols(&self, m: ModuleId) -> Vec<String> {
        self.loaded(m).map_or(Vec::new(), |l| {
            l.globals
                .iter()
                .chain(&l.consts)
                .map(|s| s.0.clone())
                .collect()
        })
    }

    /// The module's `.global` or `.const` variable `name`.
    pub fn symbol(&self, m: ModuleId, name: &str) -> Option<SymbolInfo> {
        let l = self.loaded(m).ok()?;
        let find = |t: &[(String, u64, u64)], space| {
            t.iter().find(|s| s.0 == name).map(|s| SymbolInfo {
                space,
                addr: s.1,
                size: s.2,
            })
        };
        find(&l.globals, SymbolSpace::Global).or_else(|| find(&l.consts, SymbolSpace::Const))
    }

    /// The symbol `name` and the range `[offset, offset + n)` of it, checked.
    fn symbol_range(
        &self,
        m: ModuleId,
        name: &str,
        offset: u64,
        n: u64,
    ) -> Result<SymbolInfo, DeviceError> {
        let l = self.loaded(m)?;
        let s = self.symbol(m, name).ok_or_else(|| DeviceError::NoSymbol {
            module: l.name.clone(),
            name: name.to_string(),
        })?;
        if offset.checked_add(n).is_none_or(|e| e > s.size) {
            return Err(DeviceError::SymbolRange {
                module: l.name.clone(),
                name: name.to_string(),
                offset,
                n,
                size: s.size,
            });
        }
        Ok(s)
    }

    /// Writes `data` at `offset` of the variable `name`
    /// (`cudaMemcpyToSymbol`).
    pub fn write_symbol(
        &mut self,
        m: ModuleId,
        name: &str,
        offset: u64,
        data: &[u8],
    ) -> Result<(), DeviceError> {
        self.alive()?;
        let s = self.symbol_range(m, name, offset, data.len() as u64)?;
        match s.space {
            SymbolSpace::Global => self.write(s.addr + offset, data),
            SymbolSpace::Const => {
                let at = (s.addr + offset) as usize;
                if let Some(l) = self.modules.get_mut(m.0) {
                    l.bank[at..at + data.len()].copy_from_slice(data);
                }
                Ok(())
            }
        }
    }

    /// Reads `out.len()` bytes at `offset` of the variable `name`
    /// (`cudaMemcpyFromSymbol`).
    pub fn read_symbol(
        &self,
        m: ModuleId,
        name: &str,
        offset: u64,
        out: &mut [u8],
    ) -> Result<(), DeviceError> {
        self.alive()?;
        let s = self.symbol_range(m, name, offset, out.len() as u64)?;
        match s.space {
            SymbolSpace::Global => self.read(s.addr + offset, out),
            SymbolSpace::Const => {
                let at = (s.addr + offset) as usize;
                let l = self.loaded(m)?;
                out.copy_from_slice(&l.bank[at..at + out.len()]);
                Ok(())
            }
        }
    }

    /// Inlines the calls of kernel `entry` of module `m`, if it makes any,
    /// once: launches use what is kept.
    fn ensure_inlined(&mut self, m: ModuleId, entry: &str) -> Result<(), DeviceError> {
        let l = self
            .modules
            .get_mut(m.0)
            .ok_or(DeviceError::NoModule(m.0))?;
        if !l.inlined.contains_key(entry) {
            if let Some(i) = sim_module::inline_calls(&l.src, &l.module, entry)? {
                l.inlined.insert(entry.to_string(), i);
            }
        }
        Ok(())
    }

    /// The `.entry` named `entry` of module `m`.
    fn function(&self, m: ModuleId, entry: &str) -> Result<&Function, DeviceError> {
        let module = self.loaded(m)?.for_entry(entry);
        Ok(prepare::entry_of(module, entry)?.0)
    }

    /// The kernel's parameters in order, at their offsets in the packed
    /// parameter buffer.
    pub fn params(&self, m: ModuleId, entry: &str) -> Result<Vec<ParamSlot>, DeviceError> {
        let f = self.function(m, entry)?;
        Ok(f.params
            .iter()
            .map(|p| ParamSlot {
                name: p.name.clone(),
                offset: p.offset,
                size: p.size,
                align: u64::from(p.align.unwrap_or(p.ty.size().max(1) as u32)),
                decl: p.clone(),
            })
            .collect())
    }

    /// What the kernel needs: shared, constant, local and parameter bytes,
    /// and its most threads a block. Its calls are inlined first (their
    /// variables count; a kernel not launched yet is inlined for the
    /// question alone).
    pub fn func_info(&self, m: ModuleId, entry: &str) -> Result<FuncInfo, DeviceError> {
        let l = self.loaded(m)?;
        let fresh;
        let module = match l.inlined.get(entry) {
            Some(i) => i,
            None => match sim_module::inline_calls(&l.src, &l.module, entry)? {
                Some(i) => {
                    fresh = i;
                    &fresh
                }
                None => &l.module,
            },
        };
        let (f, body) = prepare::entry_of(module, entry)?;
        let end = |s: StateSpace| {
            let vars: Vec<_> = prepare::vars_in(module, body, s)
                .into_iter()
                .filter(|v| !prepare::is_dynamic(v))
                .collect();
            crate::memory::layout(&vars, 0).1
        };
        Ok(FuncInfo {
            static_shared: end(StateSpace::Shared),
            const_bytes: end(StateSpace::Const),
            local_per_thread: end(StateSpace::Local),
            params_bytes: params_bytes(f),
            max_threads: max_threads(f),
        })
    }

    /// Runs `entry` of module `m` on `grid` x `block` with `dynamic_shared`
    /// bytes of dynamic shared memory a block and the packed parameter
    /// buffer `params` (exactly the kernel's parameter bytes). Its writes
    /// stay in the device's memory. A kernel error breaks the device (see
    /// the module documentation).
    pub fn launch(
        &mut self,
        m: ModuleId,
        entry: &str,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u32,
        params: &[u8],
    ) -> Result<Launched, DeviceError> {
        let shape = LaunchShape {
            grid,
            block,
            dynamic_shared,
        };
        self.launch_with(m, entry, shape, params, &LaunchExtras::default())
    }

    /// [`Device::launch`] of a kernel of shape `shape` with what
    /// [`LaunchExtras`] gives: the threads' registers, the environment
    /// registers' values.
    pub fn launch_with(
        &mut self,
        m: ModuleId,
        entry: &str,
        shape: LaunchShape,
        params: &[u8],
        extras: &LaunchExtras,
    ) -> Result<Launched, DeviceError> {
        let LaunchShape {
            grid,
            block,
            dynamic_shared,
        } = shape;
        let registers = extras.registers;
        self.alive()?;
        self.ensure_inlined(m, entry)?;
        let l = self.modules.get(m.0).ok_or(DeviceError::NoModule(m.0))?;
        let module = l.for_entry(entry);
        let (func, body) = prepare::entry_of(module, entry)?;
        let want = params_bytes(func);
        if want != params.len() as u64 {
            return Err(DeviceError::ParamsSize {
                entry: entry.to_string(),
                want,
                got: params.len() as u64,
            });
        }
        check_config(func, grid, block).map_err(|why| DeviceError::Config {
            entry: entry.to_string(),
            why,
        })?;
        let launch = Launch {
            ptx: PathBuf::from(&l.name),
            entry: entry.to_string(),
            grid,
            block,
            buffers: Vec::new(),
            params: Vec::new(),
            outputs: Vec::new(),
            expected: Vec::new(),
            registers,
            dynamic_shared,
            h100: None,
        };
        // The module's own globals were checked when it was loaded.
        prepare::check_declarations(module, &[], &[], &|s| prepare::vars_in(module, body, s))?;
        if let Some(v) = prepare::vars_in(module, body, StateSpace::Global)
            .into_iter()
            .find(|v| !l.globals.iter().any(|g| g.0 == v.name))
        {
            return Err(DeviceError::Config {
                entry: entry.to_string(),
                why: format!(
                    ".global variable {} is not declared at module scope",
                    v.name
                ),
            });
        }
        let start = Start {
            global: Global::default(),
            buffers: Vec::new(),
            params: params.to_vec(),
            globals: l.globals.iter().map(|g| (g.0.clone(), g.1)).collect(),
            consts: Some((
                l.consts.iter().map(|c| (c.0.clone(), c.1)).collect(),
                l.bank.clone(),
            )),
            block_threads: launch.block_threads(),
            dynamic_shared: u64::from(dynamic_shared),
        };
        let prep = Prepared::place(module, func, body, start)?;
        crate::gate::check(&prep, self.opts.config.target)?;
        preflight(&prep, &launch, &self.opts)?;
        if crate::heap::calls_heap(prep.body) {
            // Placed and counted as an allocation that is not the host's
            // to free.
            let (mem, bytes) = (&mut self.mem, self.heap_bytes);
            self.global.ensure_heap(bytes, |g, n| {
                let base = mem.place(g, n)?;
                mem.insert(g, crate::heap::HEAP_NAME, base, vec![0; n as usize], true)?;
                Ok::<_, DeviceError>(base)
            })?;
        }
        let resident = crate::run::resident(&self.global, self.opts.warm);
        let mut gpu = Gpu::new(self.opts.memory.clone(), &resident);
        let eo = engine::Options {
            envreg: extras.envreg,
            ..self.opts.engine_options()
        };
        // Moved in and back out: a launch never copies the device's memory.
        let global = std::mem::take(&mut self.global);
        match engine::run(&prep, global, &launch, &eo, &mut gpu, &mut Warps::None) {
            Ok(mut f) => {
                let timed = take_timed(&mut f, Vec::new());
                self.global = f.global;
                Ok(Launched {
                    warps: f.warps,
                    instructions: f.instructions,
                    timed,
                    printf: f.printf,
                    printf_dropped: f.printf_dropped,
                })
            }
            Err(e) => {
                self.broken = Some(e.to_string());
                Err(DeviceError::Kernel(Box::new(e)))
            }
        }
    }
}

/// A launch's shape: its grid and block of threads, and the bytes of
/// dynamic shared memory a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// Blocks in the grid, x, y, z.
    pub grid: [u32; 3],
    /// Threads in a block, x, y, z.
    pub block: [u32; 3],
    /// Dynamic shared memory a block, in bytes.
    pub dynamic_shared: u32,
}

/// What a launch gives besides its shape and parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchExtras {
    /// Registers a thread, as ptxas allocated them (from the program's
    /// machine code): the register file then limits the blocks an SM
    /// holds, as a launch file's `registers` does; the device's own
    /// `registers` option overrides it.
    pub registers: Option<u32>,
    /// What `%envreg0`..`%envreg31` read, zeros where nothing is given.
    /// CUDA's runtime gives a cooperative launch's grid workspace (8
    /// zeroed bytes: cooperative groups' `grid_workspace`, its barrier
    /// counter at offset 4) in `%envreg1` (high half) and `%envreg2` (low).
    pub envreg: [u32; 32],
}

/// Bytes of `f`'s parameter buffer.
fn params_bytes(f: &Function) -> u64 {
    f.params
        .iter()
        .map(|p| p.offset + p.size)
        .max()
        .unwrap_or(0)
}

/// `.maxntid`'s or `.reqntid`'s product, else 1024.
fn max_threads(f: &Function) -> u32 {
    f.directives
        .iter()
        .find(|d| d.name == "maxntid" || d.name == "reqntid")
        .map_or(1024, |d| {
            d.values
                .iter()
                .fold(1u64, |n, &v| n.saturating_mul(v))
                .min(1024) as u32
        })
}

/// The CUDA limits on a launch's shape (sm_90, CUDA C Programming Guide's
/// technical specifications), the simulator's on a grid
/// ([`sim_module::launch::MAX_GRID_BLOCKS`]), and the kernel's
/// `.maxntid`/`.reqntid`.
fn check_config(f: &Function, grid: [u32; 3], block: [u32; 3]) -> Result<(), String> {
    if grid.contains(&0) || block.contains(&0) {
        return Err(format!(
            "grid {grid:?} or block {block:?} has a zero dimension"
        ));
    }
    let gmax = [(1u32 << 31) - 1, 65535, 65535];
    let bmax = [1024, 1024, 64];
    for k in 0..3 {
        if grid[k] > gmax[k] {
            return Err(format!(
                "grid dimension {k} is {}, more than {}",
                grid[k], gmax[k]
            ));
        }
        if block[k] > bmax[k] {
            return Err(format!(
                "block dimension {k} is {}, more than {}",
                block[k], bmax[k]
            ));
        }
    }
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    let blocks: u64 = grid.iter().map(|&d| u64::from(d)).product();
    if threads > u64::from(max_threads(f)) {
        return Err(format!(
            "a block of {threads} threads, more than {} (the kernel's limit)",
            max_threads(f)
        ));
    }
    if let Some(d) = f.directives.iter().find(|d| d.name == "reqntid") {
        let want: Vec<u64> = (0..3)
            .map(|k| d.values.get(k).copied().unwrap_or(1))
            .collect();
        if block.iter().zip(&want).any(|(&b, &w)| u64::from(b) != w) {
            return Err(format!(
                "the kernel requires a block of {want:?} (.reqntid), not {block:?}"
            ));
        }
    }
    let most = sim_module::launch::MAX_GRID_BLOCKS;
    if blocks > most {
        return Err(format!(
            "{blocks} blocks, more than the simulator's limit of {most}"
        ));
    }
    Ok(())
}

/// What the engine would refuse before running a block, checked while the
/// device's memory is still the device's (a refusal then leaves it whole).
fn preflight(prep: &Prepared<'_>, launch: &Launch, opts: &RunOptions) -> Result<(), KernelError> {
    let threads = launch.block_threads();
    let wpb = threads.div_ceil(sim_isa::WARP_SIZE as u64).max(1);
    let limits = &opts.memory;
    if prep.shared > limits.smem_per_sm {
        return Err(KernelError::Limit(format!(
            "a block needs {} bytes of shared memory (static and dynamic); an SM has {}",
            prep.shared, limits.smem_per_sm
        )));
    }
    if wpb > u64::from(opts.config.resident_warps) {
        return Err(KernelError::Limit(format!(
            "a block of {threads} threads needs {wpb} warps; an SM holds {}",
            opts.config.resident_warps
        )));
    }
    let local = prep.local.saturating_mul(threads);
    if local > engine::MAX_RESIDENT_LOCAL {
        return Err(KernelError::Limit(format!(
            "a block needs {local} bytes of local memory, more than the limit of {}",
            engine::MAX_RESIDENT_LOCAL
        )));
    }
    Ok(())
}
