//! The runtime's state and every operation on it, in safe code: the C entry
//! points (`abi`) read the program's pointers and call these.
//!
//! Everything is synchronous: a launch runs to its end on the simulator
//! when the program makes it, whatever the stream, so streams only name
//! themselves and an event records the simulated device time (the cycles
//! of the launches before it) when it is recorded.

use crate::err;
use crate::host::HostBlock;
use crate::props::Facts;
use crate::protocol::{LaunchRow, Settings};
use sim_kernel::device::{
    Device, DeviceError, FuncInfo, LaunchExtras, LaunchShape, ModuleId, ParamSlot,
};
use std::collections::HashMap;
use std::io::Write;

pub use crate::err::{Fail, Res};

/// A registered fatbinary: the PTX for the simulated target, or why there
/// is none (reported when a kernel of it is first used).
struct Fatbin {
    ptx: Result<String, String>,
    /// Its module on the device, once loaded.
    module: Option<ModuleId>,
    /// Registers a thread of each kernel, by `.entry` name, from its
    /// machine code for the simulated target (none when it has none).
    registers: Vec<(String, u32)>,
}

/// A registered kernel or variable: its fatbinary and PTX name.
#[derive(Clone, Debug)]
struct Named {
    fatbin: usize,
    name: String,
}

/// A `__managed__` variable: the host reaches it through a pointer nvcc's
/// code keeps (at `pointer`), which the runtime points at a host block of
/// its own; its device copy is the module's `.global` variable, brought
/// level with the block around every launch.
struct ManagedVar {
    fatbin: usize,
    name: String,
    size: u64,
    /// The address of the program's pointer to the variable.
    pointer: u64,
    /// The host block, once the module is initialised.
    block: Option<HostBlock>,
}

/// `<<<grid, block, shared, stream>>>` between push and pop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallConfig {
    /// Blocks.
    pub grid: [u32; 3],
    /// Threads a block.
    pub block: [u32; 3],
    /// Dynamic shared memory a block.
    pub shared: u64,
    /// The stream, as the program names it.
    pub stream: u64,
}

/// Where a pointer points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Simulated device memory (`cudaMalloc`, a `__device__` variable).
    Device,
    /// One of the runtime's host blocks (`cudaMallocHost`, managed
    /// memory), which the program reads and writes directly.
    HostBlock,
    /// Anything else: the program's own host memory, if the call says so.
    Other,
}

/// The simulator's state, created when first needed.
struct Sim {
    device: Device,
    facts: Facts,
}

/// The runtime.
pub struct Runtime {
    settings: Settings,
    sim: Option<Sim>,
    fatbins: Vec<Fatbin>,
    functions: HashMap<u64, Named>,
    vars: HashMap<u64, Named>,
    configs: Vec<CallConfig>,
    last_error: i32,
    /// A kernel fault: every later call fails with it, as on a GPU.
    sticky: Option<i32>,
    /// Simulated device time, cycles.
    now: u64,
    events: HashMap<u64, Option<u64>>,
    streams: Vec<u64>,
    next_handle: u64,
    /// Host blocks by address, each also mapped into the device.
    host: HashMap<u64, HostBlock>,
    launches: u64,
    /// Bytes of device memory the program holds.
    allocated: u64,
    /// `__managed__` variables.
    managed: Vec<ManagedVar>,
    /// `--save-launches`: each fatbinary's variables' initial values.
    initial: HashMap<usize, Vec<(String, Vec<u8>)>>,
    /// What the last launch's device `printf` printed, for the C side to
    /// write to the program's `stdout`.
    printed: Vec<u8>,
    /// Dynamic shared memory limits the program raised.
    pub shared_limits: crate::smem::SharedLimits,
    /// CUDA graphs and stream captures.
    pub graphs: crate::graph::Graphs,
}

impl Runtime {
    /// A runtime with `settings` (`simcli exec`'s, or the defaults).
    pub fn new(settings: Settings) -> Runtime {
        Runtime {
            settings,
            sim: None,
            fatbins: Vec::new(),
            functions: HashMap::new(),
            vars: HashMap::new(),
            configs: Vec::new(),
            last_error: err::SUCCESS,
            sticky: None,
            now: 0,
            events: HashMap::new(),
            streams: Vec::new(),
            next_handle: 0x5100,
            host: HashMap::new(),
            launches: 0,
            allocated: 0,
            printed: Vec::new(),
            managed: Vec::new(),
            initial: HashMap::new(),
            shared_limits: Default::default(),
            graphs: Default::default(),
        }
    }

    /// Notes a call's result for `cudaGetLastError` and gives its code.
    pub fn note(&mut self, r: Res<()>) -> i32 {
        match r {
            Ok(()) => err::SUCCESS,
            Err(f) => {
                if let Some(m) = &f.message {
                    eprintln!("ptx-sm-sim: {m}");
                }
                if f.code != err::SUCCESS {
                    self.last_error = f.code;
                }
                f.code
            }
        }
    }

    /// The last launch's device `printf` output, taken.
    pub fn take_printed(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.printed)
    }

    /// `cudaGetLastError`: the last error, reset unless it is sticky.
    pub fn take_last_error(&mut self) -> i32 {
        let e = self.last_error;
        self.last_error = self.sticky.unwrap_or(err::SUCCESS);
        e
    }

    /// `cudaPeekAtLastError`.
    pub fn peek_last_error(&self) -> i32 {
        self.last_error
    }

    /// Fails with the sticky error, if a kernel faulted.
    pub fn alive(&self) -> Res<()> {
        match self.sticky {
            Some(c) => Err(Fail::code(c)),
            None => Ok(()),
        }
    }

    fn target_sm(&self) -> u32 {
        let arch = self.settings.arch.as_deref().unwrap_or("sm_90");
        sim_isa::Target::parse(arch).map_or(90, |t| t.sm)
    }

    /// The simulator, created on first use.
    fn sim(&mut self) -> Res<&mut Sim> {
        if self.sim.is_none() {
            let opts = self
                .settings
                .run_options()
                .map_err(|m| Fail::said(err::INITIALIZATION, m))?;
            let facts = Facts::of(&opts.config, &opts.memory, opts.sms);
            self.sim = Some(Sim {
                device: Device::new(opts),
                facts,
            });
        }
        self.sim
            .as_mut()
            .ok_or_else(|| Fail::code(err::INITIALIZATION))
    }

    /// The simulated device's figures.
    pub fn facts(&mut self) -> Res<Facts> {
        Ok(self.sim()?.facts.clone())
    }

    /// The device heap's bytes (`cudaLimitMallocHeapSize`).
    pub fn heap_bytes(&mut self) -> Res<u64> {
        Ok(self.sim()?.device.heap_bytes())
    }

    /// Sets them: refused once a kernel calling `malloc` ran (CUDA's
    /// `cudaErrorInvalidValue` then).
    pub fn set_heap_bytes(&mut self, bytes: u64) -> Res<()> {
        if self.sim()?.device.set_heap_bytes(bytes) {
            return Ok(());
        }
        Err(Fail::code(err::INVALID_VALUE))
    }

    // ---- registration ----

    /// `__cudaRegisterFatBinary`: `bytes` is the fatbinary (or why it
    /// could not be read); gives its handle.
    pub fn register_fatbin(&mut self, bytes: Result<&[u8], String>) -> usize {
        let sm = self.target_sm();
        let registers = bytes
            .as_ref()
            .map_or_else(|_| Vec::new(), |b| crate::fatbin::registers_for(b, sm));
        let ptx = bytes.and_then(|b| crate::fatbin::ptx_for(b, sm));
        self.fatbins.push(Fatbin {
            ptx,
            module: None,
            registers,
        });
        self.fatbins.len() - 1
    }

    /// `__cudaRegisterFunction`: the kernel whose host stub is at `stub`.
    pub fn register_function(&mut self, fatbin: usize, stub: u64, name: String) {
        self.functions.insert(stub, Named { fatbin, name });
    }

    /// `__cudaRegisterVar`: the variable whose host shadow is at `shadow`.
    pub fn register_var(&mut self, fatbin: usize, shadow: u64, name: String) {
        self.vars.insert(shadow, Named { fatbin, name });
    }

    /// `__cudaRegisterManagedVar`: the variable whose host pointer is at
    /// `pointer`.
    pub fn register_managed_var(&mut self, fatbin: usize, pointer: u64, name: String, size: u64) {
        self.managed.push(ManagedVar {
            fatbin,
            name,
            size,
            pointer,
            block: None,
        });
    }

    /// `__cudaInitModule`: the module of fatbinary `f` loaded, and each of
    /// its `__managed__` variables given a host block holding its initial
    /// value; gives (pointer, block address) for the C side to write.
    pub fn init_module(&mut self, f: usize) -> Res<Vec<(u64, u64)>> {
        if !self
            .managed
            .iter()
            .any(|v| v.fatbin == f && v.block.is_none())
        {
            return Ok(Vec::new());
        }
        // A module that does not load still gets its variables' blocks
        // (zeroed): the program's pointers must never stay null.
        let m = match self.module(f) {
            Ok(m) => Some(m),
            Err(e) => {
                self.note(Err(e));
                None
            }
        };
        let mut out = Vec::new();
        let Runtime { sim, managed, .. } = self;
        for v in managed
            .iter_mut()
            .filter(|v| v.fatbin == f && v.block.is_none())
        {
            let mut b =
                HostBlock::new(v.size, true).ok_or_else(|| Fail::code(err::MEMORY_ALLOCATION))?;
            let n = v.size as usize;
            if let (Some(sim), Some(m)) = (sim.as_mut(), m) {
                sim.device
                    .read_symbol(m, &v.name, 0, &mut b.bytes_mut()[..n])
                    .map_err(|e| Fail::said(err::INVALID_SYMBOL, e.to_string()))?;
            }
            out.push((v.pointer, b.addr()));
            v.block = Some(b);
        }
        Ok(out)
    }

    /// The module of fatbinary `f`, loaded on first use.
    fn module(&mut self, f: usize) -> Res<ModuleId> {
        let fb = self
            .fatbins
            .get(f)
            .ok_or_else(|| Fail::code(err::INVALID_RESOURCE_HANDLE))?;
        if let Some(m) = fb.module {
            return Ok(m);
        }
        let ptx = fb
            .ptx
            .clone()
            .map_err(|m| Fail::said(err::NO_KERNEL_IMAGE, m))?;
        // Errors name the program and which of its fatbinaries: the PTX
        // line numbers are those of `nvcc -ptx` on its source.
        let exe = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "program".into());
        let name = format!("{exe} (fatbinary {f}, PTX)");
        let m = self
            .sim()?
            .device
            .load_module(&name, &ptx)
            .map_err(|e| Fail::said(err::INVALID_PTX, e.to_string()))?;
        if let Some(fb) = self.fatbins.get_mut(f) {
            fb.module = Some(m);
        }
        Ok(m)
    }

    /// Registers a thread of kernel `name` of fatbinary `f`, as ptxas
    /// allocated them for the simulated target, if its machine code says.
    pub fn registers(&self, f: usize, name: &str) -> Option<u32> {
        let fb = self.fatbins.get(f)?;
        fb.registers.iter().find(|(n, _)| n == name).map(|r| r.1)
    }

    /// [`Runtime::registers`] of the kernel whose stub is at `stub`.
    pub fn registers_of(&self, stub: u64) -> Option<u32> {
        let k = self.kernel(stub).ok()?;
        self.registers(k.fatbin, &k.name)
    }

    fn kernel(&self, stub: u64) -> Res<Named> {
        self.functions
            .get(&stub)
            .cloned()
            .ok_or_else(|| Fail::code(err::INVALID_DEVICE_FUNCTION))
    }

    fn var(&self, shadow: u64) -> Res<Named> {
        self.vars
            .get(&shadow)
            .cloned()
            .ok_or_else(|| Fail::code(err::INVALID_SYMBOL))
    }

    // ---- launches ----

    /// `__cudaPushCallConfiguration`.
    pub fn push_config(&mut self, c: CallConfig) {
        self.configs.push(c);
    }

    /// `__cudaPopCallConfiguration`.
    pub fn pop_config(&mut self) -> Res<CallConfig> {
        self.configs
            .pop()
            .ok_or_else(|| Fail::code(err::INVALID_CONFIGURATION))
    }

    /// The parameters of the kernel whose stub is at `stub`.
    pub fn params(&mut self, stub: u64) -> Res<Vec<ParamSlot>> {
        self.ask_kernel(stub, Device::params)
    }

    /// What `cudaFuncGetAttributes` reports.
    pub fn func_info(&mut self, stub: u64) -> Res<FuncInfo> {
        self.ask_kernel(stub, Device::func_info)
    }

    /// `ask` of the device about the kernel whose stub is at `stub` (its
    /// module, loaded on first use, and PTX name); the device's refusal is
    /// `cudaErrorInvalidDeviceFunction` with its message.
    fn ask_kernel<T>(
        &mut self,
        stub: u64,
        ask: impl FnOnce(&Device, ModuleId, &str) -> Result<T, DeviceError>,
    ) -> Res<T> {
        self.alive()?;
        let k = self.kernel(stub)?;
        let m = self.module(k.fatbin)?;
        ask(&self.sim()?.device, m, &k.name)
            .map_err(|e| Fail::said(err::INVALID_DEVICE_FUNCTION, e.to_string()))
    }

    /// Runs the kernel whose stub is at `stub` with the packed parameter
    /// buffer `params`, to its end.
    pub fn launch(&mut self, stub: u64, c: &CallConfig, params: &[u8]) -> Res<()> {
        self.launch_env(stub, c, params, [0; 32])
    }

    /// Records the launch of `stub` as a kernel node where `c`'s stream is
    /// capturing (`cooperative`: as `crate::coop` launches it, its
    /// workspace made when the node runs); false where it is not.
    pub fn capture(&mut self, stub: u64, c: &CallConfig, params: &[u8], cooperative: bool) -> bool {
        if self.graphs.capturing(c.stream).is_none() {
            return false;
        }
        let node = crate::graph::Node::Kernel {
            stub,
            grid: c.grid,
            block: c.block,
            shared: c.shared,
            params: params.to_vec(),
            cooperative,
        };
        self.graphs.record(c.stream, node)
    }

    /// [`Runtime::launch`] with `%envreg0`..`%envreg31` reading `envreg`
    /// (a cooperative launch's grid workspace: `crate::coop`).
    pub fn launch_env(
        &mut self,
        stub: u64,
        c: &CallConfig,
        params: &[u8],
        envreg: [u32; 32],
    ) -> Res<()> {
        self.alive()?;
        let k = self.kernel(stub)?;
        if self.capture(stub, c, params, false) {
            return Ok(());
        }
        let m = self.module(k.fatbin)?;
        let shared = u32::try_from(c.shared).map_err(|_| Fail::code(err::INVALID_CONFIGURATION))?;
        let static_shared = self.func_info(stub)?.static_shared;
        self.shared_limits
            .check(stub, &k.name, shared.into(), static_shared)
            .map_err(|m| Fail::said(err::INVALID_VALUE, m))?;
        self.sync_host(true)?;
        let (start, index) = (self.now, self.launches);
        let registers = self.registers(k.fatbin, &k.name);
        let saving = self
            .saving(index, k.fatbin, m, &k.name, c, shared, params)?
            .map(|s| s.with_registers(registers));
        let sim = self.sim()?;
        let sms = sim.device.options().sms;
        let extras = LaunchExtras { registers, envreg };
        let shape = LaunchShape {
            grid: c.grid,
            block: c.block,
            dynamic_shared: shared,
        };
        let r = sim.device.launch_with(m, &k.name, shape, params, &extras);
        self.launches += 1;
        if let Some(s) = &saving {
            let after = match &r {
                Ok(_) => Some(self.buffers_now(&s.buffers)?),
                Err(_) => None,
            };
            s.after(after.as_deref())
                .map_err(|m| Fail::said(err::UNKNOWN, m))?;
        }
        let mut row = LaunchRow {
            index,
            kernel: k.name.clone(),
            grid: c.grid,
            block: c.block,
            dynamic_shared: shared,
            sms,
            warps: 0,
            instructions: 0,
            cycles: 0,
            start_cycle: start,
            stats: sim_core::Stats::default(),
            sampled: None,
            error: None,
        };
        let out = match r {
            Ok(l) => {
                self.now += l.timed.cycles;
                row.warps = l.warps;
                row.instructions = l.instructions;
                row.cycles = l.timed.cycles;
                row.sampled = l.timed.sampled.map(|s| {
                    serde_json::json!({
                        "timed_sms": s.timed_sms,
                        "timed_blocks": s.timed_blocks,
                        "block_cycles": s.block_cycles,
                        "ci95": s.ci95,
                        "modelled_by_mean": s.modelled_by_mean,
                    })
                });
                row.stats = l.timed.stats;
                if l.printf_dropped > 0 {
                    eprintln!(
                        "ptx-sm-sim: kernel {}: {} printf calls dropped past the {}-byte buffer",
                        k.name,
                        l.printf_dropped,
                        sim_kernel::printf::FIFO_BYTES
                    );
                }
                self.printed = l.printf;
                self.sync_host(false)
            }
            Err(e) => {
                let f = launch_failure(&k.name, &e);
                row.error = f.message.clone();
                if is_fault(&e) {
                    self.sticky = Some(f.code);
                }
                Err(f)
            }
        };
        self.report(&row)?;
        out
    }

    /// `--save-launches`: the launch about to run, its module and buffers
    /// written (none if not asked for, or if its buffers pass the launch
    /// format's limit, which is said).
    #[allow(clippy::too_many_arguments)]
    fn saving(
        &mut self,
        index: u64,
        fatbin: usize,
        m: ModuleId,
        kernel: &str,
        c: &CallConfig,
        shared: u32,
        params: &[u8],
    ) -> Res<Option<crate::save::Saving>> {
        let Some(dir) = self.settings.save_launches.clone() else {
            return Ok(None);
        };
        let ptx = match self.fatbins.get(fatbin).map(|f| &f.ptx) {
            Some(Ok(p)) => p.clone(),
            _ => return Ok(None),
        };
        let initial = self.initial_values(fatbin, &ptx)?;
        let sim = self.sim()?;
        let mut changed = Vec::new();
        for (name, first) in &initial {
            let mut now = vec![0u8; first.len()];
            sim.device
                .read_symbol(m, name, 0, &mut now)
                .map_err(dev_fail)?;
            if &now != first {
                changed.push((name.clone(), now));
            }
        }
        let (module, ptx) = if changed.is_empty() {
            (format!("module-{fatbin}.ptx"), ptx)
        } else {
            (
                format!("launch-{index}.ptx"),
                crate::save::with_values(&ptx, &changed),
            )
        };
        let slots = sim
            .device
            .params(m, kernel)
            .map_err(|e| Fail::said(err::INVALID_DEVICE_FUNCTION, e.to_string()))?;
        let spans = sim.device.allocations();
        let total: u64 = spans.iter().map(|s| s.1).sum();
        if total > crate::save::MAX_SAVED_BYTES {
            eprintln!(
                "ptx-sm-sim: --save-launches: launch {index} not saved: its {total} bytes of buffers pass the launch format's limit"
            );
            return Ok(None);
        }
        let mut buffers = Vec::with_capacity(spans.len());
        for (base, len) in spans {
            let mut b = vec![0u8; len as usize];
            sim.device.read(base, &mut b).map_err(dev_fail)?;
            buffers.push((base, b));
        }
        if index == 0 {
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("--save-launches: {}: {e}", dir.display()))
                .and_then(|()| crate::save::put(&dir, "README.txt", crate::save::README.as_bytes()))
                .map_err(|e| Fail::said(err::UNKNOWN, e))?;
        }
        let s = crate::save::Saving {
            dir,
            index,
            module,
            kernel: kernel.to_string(),
            grid: c.grid,
            block: c.block,
            dynamic_shared: shared,
            slots,
            params: params.to_vec(),
            buffers,
            registers: None,
        };
        s.before(&ptx).map_err(|m| Fail::said(err::UNKNOWN, m))?;
        Ok(Some(s))
    }

    /// The values fatbinary `f`'s `.global` and `.const` variables start
    /// with (its PTX loaded on a device of its own), computed once.
    fn initial_values(&mut self, f: usize, ptx: &str) -> Res<Vec<(String, Vec<u8>)>> {
        if let Some(v) = self.initial.get(&f) {
            return Ok(v.clone());
        }
        let opts = self.sim()?.device.options().clone();
        let mut fresh = Device::new(opts);
        let m = fresh
            .load_module("initial values", ptx)
            .map_err(|e| Fail::said(err::INVALID_PTX, e.to_string()))?;
        let mut out = Vec::new();
        for name in fresh.symbols(m) {
            let size = fresh.symbol(m, &name).map_or(0, |s| s.size);
            let mut b = vec![0u8; size as usize];
            fresh.read_symbol(m, &name, 0, &mut b).map_err(dev_fail)?;
            out.push((name, b));
        }
        self.initial.insert(f, out.clone());
        Ok(out)
    }

    /// The bytes now at each of `buffers`' bases.
    fn buffers_now(&mut self, buffers: &[(u64, Vec<u8>)]) -> Res<Vec<Vec<u8>>> {
        let sim = self.sim()?;
        buffers
            .iter()
            .map(|(base, b)| {
                let mut out = vec![0u8; b.len()];
                sim.device.read(*base, &mut out).map_err(dev_fail)?;
                Ok(out)
            })
            .collect()
    }

    /// Appends `row` to the report file, if one is asked for.
    fn report(&mut self, row: &LaunchRow) -> Res<()> {
        let Some(path) = &self.settings.report else {
            return Ok(());
        };
        let line = serde_json::to_string(row)
            .map_err(|e| Fail::said(err::UNKNOWN, format!("report: {e}")))?;
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .and_then(|mut f| writeln!(f, "{line}"))
            .map_err(|e| Fail::said(err::UNKNOWN, format!("report {}: {e}", path.display())))
    }

    /// Before a launch (`to_device`): the host blocks' bytes into the
    /// device, and each initialised `__managed__` variable's into its
    /// module's variable. After one: the same bytes back from the device.
    fn sync_host(&mut self, to_device: bool) -> Res<()> {
        let Runtime {
            sim,
            host,
            managed,
            fatbins,
            ..
        } = self;
        let Some(sim) = sim else { return Ok(()) };
        let d = &mut sim.device;
        for b in host.values_mut() {
            let addr = b.addr();
            if to_device {
                d.write(addr, b.bytes())
            } else {
                d.read(addr, b.bytes_mut())
            }
            .map_err(dev_fail)?;
        }
        for v in managed.iter_mut() {
            let (Some(b), Some(m)) = (&mut v.block, fatbins.get(v.fatbin).and_then(|f| f.module))
            else {
                continue;
            };
            let n = v.size as usize;
            if to_device {
                d.write_symbol(m, &v.name, 0, &b.bytes()[..n])
            } else {
                d.read_symbol(m, &v.name, 0, &mut b.bytes_mut()[..n])
            }
            .map_err(dev_fail)?;
        }
        Ok(())
    }

    // ---- memory ----

    /// `cudaMalloc`.
    pub fn malloc(&mut self, bytes: u64) -> Res<u64> {
        self.alive()?;
        let a = self
            .sim()?
            .device
            .malloc(bytes)
            .map_err(|e| Fail::said(err::MEMORY_ALLOCATION, e.to_string()))?;
        self.allocated += bytes;
        Ok(a)
    }

    /// `cudaMallocHost`, `cudaHostAlloc`, `cudaMallocManaged`: host memory
    /// kernels also reach.
    pub fn malloc_host(&mut self, bytes: u64, managed: bool) -> Res<u64> {
        self.alive()?;
        let b = HostBlock::new(bytes, managed).ok_or_else(|| Fail::code(err::MEMORY_ALLOCATION))?;
        let addr = b.addr();
        self.sim()?
            .device
            .malloc_at(addr, b.len())
            .map_err(|e| Fail::said(err::MEMORY_ALLOCATION, e.to_string()))?;
        self.host.insert(addr, b);
        Ok(addr)
    }

    /// `cudaFree` / `cudaFreeHost`.
    pub fn free(&mut self, addr: u64) -> Res<()> {
        if addr == 0 {
            return Ok(());
        }
        self.alive()?;
        let host = self.host.remove(&addr);
        let sim = self.sim()?;
        let len = sim.device.allocation(addr).map_or(0, |(_, n)| n);
        sim.device
            .free(addr)
            .map_err(|e| Fail::said(err::INVALID_VALUE, format!("cudaFree: {e}")))?;
        if host.is_none() {
            self.allocated = self.allocated.saturating_sub(len);
        }
        Ok(())
    }

    /// Where `addr` points.
    pub fn place(&self, addr: u64) -> Place {
        if self.host.contains_key(&addr) || self.host_block_of(addr).is_some() {
            return Place::HostBlock;
        }
        match &self.sim {
            Some(s) if s.device.allocation(addr).is_some() => Place::Device,
            _ => Place::Other,
        }
    }

    /// `cudaPointerGetAttributes`: the memory type (`enum cudaMemoryType`)
    /// of `addr` and its device and host addresses (0 where it has none).
    pub fn pointer_attributes(&self, addr: u64) -> (i32, u64, u64) {
        use crate::gen::layout as l;
        match self.place(addr) {
            Place::Device => (l::cudaMemoryTypeDevice, addr, 0),
            Place::HostBlock => {
                let managed = self
                    .host_block_of(addr)
                    .and_then(|b| self.host.get(&b))
                    .is_some_and(|b| b.managed);
                let t = if managed {
                    l::cudaMemoryTypeManaged
                } else {
                    l::cudaMemoryTypeHost
                };
                (t, addr, addr)
            }
            Place::Other => (l::cudaMemoryTypeUnregistered, 0, 0),
        }
    }

    fn host_block_of(&self, addr: u64) -> Option<u64> {
        self.host
            .values()
            .find(|b| addr >= b.addr() && addr - b.addr() < b.len())
            .map(HostBlock::addr)
    }

    /// Device bytes at `addr` into `out`.
    pub fn read(&mut self, addr: u64, out: &mut [u8]) -> Res<()> {
        self.alive()?;
        self.sim()?.device.read(addr, out).map_err(dev_fail)
    }

    /// `data` into device memory at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Res<()> {
        self.alive()?;
        self.sim()?.device.write(addr, data).map_err(dev_fail)
    }

    /// `cudaMemset` on device memory.
    pub fn fill(&mut self, addr: u64, value: u8, n: u64) -> Res<()> {
        self.alive()?;
        self.sim()?.device.fill(addr, value, n).map_err(dev_fail)
    }

    /// A device-to-device copy.
    pub fn copy(&mut self, dst: u64, src: u64, n: u64) -> Res<()> {
        self.alive()?;
        self.sim()?.device.copy(dst, src, n).map_err(dev_fail)
    }

    /// Bytes of device memory the program holds.
    pub fn allocated(&self) -> u64 {
        self.allocated
    }

    // ---- symbols ----

    /// The variable whose shadow is at `shadow` and its module, loaded on
    /// first use.
    fn var_module(&mut self, shadow: u64) -> Res<(Named, ModuleId)> {
        self.alive()?;
        let v = self.var(shadow)?;
        let m = self.module(v.fatbin)?;
        Ok((v, m))
    }

    /// `cudaMemcpyToSymbol`.
    pub fn write_symbol(&mut self, shadow: u64, offset: u64, data: &[u8]) -> Res<()> {
        let (v, m) = self.var_module(shadow)?;
        let r = self.sim()?.device.write_symbol(m, &v.name, offset, data);
        r.map_err(dev_fail)
    }

    /// `cudaMemcpyFromSymbol`.
    pub fn read_symbol(&mut self, shadow: u64, offset: u64, out: &mut [u8]) -> Res<()> {
        let (v, m) = self.var_module(shadow)?;
        let r = self.sim()?.device.read_symbol(m, &v.name, offset, out);
        r.map_err(dev_fail)
    }

    /// `cudaGetSymbolAddress` / `cudaGetSymbolSize`: a `__device__`
    /// variable's device address and size.
    pub fn symbol(&mut self, shadow: u64) -> Res<(u64, u64)> {
        let (v, m) = self.var_module(shadow)?;
        let s = self
            .sim()?
            .device
            .symbol(m, &v.name)
            .ok_or_else(|| Fail::code(err::INVALID_SYMBOL))?;
        match s.space {
            sim_kernel::device::SymbolSpace::Global => Ok((s.addr, s.size)),
            // A `__constant__` variable has no generic address here.
            sim_kernel::device::SymbolSpace::Const => Err(Fail::said(
                err::NOT_SUPPORTED,
                format!("the address of __constant__ variable '{}'", v.name),
            )),
        }
    }

    // ---- streams, events, time ----

    fn handle(&mut self) -> u64 {
        self.next_handle += 0x10;
        self.next_handle
    }

    /// `cudaStreamCreate`.
    pub fn stream_create(&mut self) -> u64 {
        let h = self.handle();
        self.streams.push(h);
        h
    }

    /// `cudaStreamDestroy`.
    pub fn stream_destroy(&mut self, h: u64) -> Res<()> {
        let n = self.streams.len();
        self.streams.retain(|&s| s != h);
        if n == self.streams.len() {
            return Err(Fail::code(err::INVALID_RESOURCE_HANDLE));
        }
        Ok(())
    }

    /// `cudaEventCreate`.
    pub fn event_create(&mut self) -> u64 {
        let h = self.handle();
        self.events.insert(h, None);
        h
    }

    /// `cudaEventDestroy`.
    pub fn event_destroy(&mut self, h: u64) -> Res<()> {
        self.events
            .remove(&h)
            .map(|_| ())
            .ok_or_else(|| Fail::code(err::INVALID_RESOURCE_HANDLE))
    }

    /// `cudaEventRecord` in `stream`: the simulated time now, or, in a
    /// capturing stream, a point of the capture that other streams may
    /// wait on to join it (it records no time).
    pub fn event_record(&mut self, h: u64, stream: u64) -> Res<()> {
        let now = self.now;
        let e = self
            .events
            .get_mut(&h)
            .ok_or_else(|| Fail::code(err::INVALID_RESOURCE_HANDLE))?;
        if !self.graphs.record_event(h, stream) {
            *e = Some(now);
        }
        Ok(())
    }

    /// `cudaEventSynchronize` / `cudaEventQuery`: recorded events are done.
    pub fn event_check(&self, h: u64) -> Res<()> {
        self.alive()?;
        match self.events.get(&h) {
            Some(_) => Ok(()),
            None => Err(Fail::code(err::INVALID_RESOURCE_HANDLE)),
        }
    }

    /// `cudaEventElapsedTime`: milliseconds of simulated time at the
    /// device's clock.
    pub fn elapsed_ms(&mut self, start: u64, end: u64) -> Res<f32> {
        let t = |h: u64| -> Res<u64> {
            match self.events.get(&h) {
                Some(Some(t)) => Ok(*t),
                Some(None) => Err(Fail::code(err::INVALID_RESOURCE_HANDLE)),
                None => Err(Fail::code(err::INVALID_RESOURCE_HANDLE)),
            }
        };
        let (a, b) = (t(start)?, t(end)?);
        let khz = f64::from(self.facts()?.clock_khz.max(1));
        Ok(((b as f64 - a as f64) / khz) as f32)
    }

    /// `cudaDeviceReset`: every allocation, module and error gone.
    pub fn reset(&mut self) {
        self.sim = None;
        self.host.clear();
        // The program's pointers still point at the blocks: keep them,
        // to be written into the next device's variables.
        for f in &mut self.fatbins {
            f.module = None;
        }
        self.sticky = None;
        self.last_error = err::SUCCESS;
        self.allocated = 0;
    }
}

/// A device error of a memory call.
fn dev_fail(e: DeviceError) -> Fail {
    Fail::said(err::INVALID_VALUE, e.to_string())
}

/// Whether a launch error is the kernel's own fault (sticky), not a
/// refused launch.
fn is_fault(e: &DeviceError) -> bool {
    crate::classify::is_fault(e)
}

/// The CUDA error of a failed launch of `kernel`. A failed device
/// `assert` prints its threads' lines as CUDA does (standard error, one a
/// thread), then where the simulator stopped.
fn launch_failure(kernel: &str, e: &DeviceError) -> Fail {
    let code = crate::classify::launch_code(e);
    if let DeviceError::Kernel(k) = e {
        if let sim_kernel::KernelError::Assert { lines, at } = k.as_ref() {
            eprint!("{lines}");
            let at = format!("block {:?} warp {} at {}", at.cta, at.warp, at.place());
            return Fail::said(
                code,
                format!("kernel {kernel}: device-side assert triggered in {at}"),
            );
        }
    }
    Fail::said(code, format!("kernel {kernel}: {e}"))
}
