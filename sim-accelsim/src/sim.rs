//! Times a kernel trace on the SM model with the memory model.
//!
//! Every traced warp is an executed warp of an SM ([`Sm::add_executed_warp`]):
//! the host pushes its instructions with the lanes the trace gives, and the
//! SM times them (issue, scoreboard, pipes). Memory instructions are
//! external: at issue, their traced addresses go to sim-kernel's memory
//! model ([`SmMem::access`]: L1, L2, DRAM, shared-memory banks), which says
//! when their data is ready. A warp is pushed up to and including its next
//! `BAR`; the rest follows once every warp of its block that reaches that
//! barrier has issued it.
//!
//! Blocks are dealt to SMs round-robin in trace order; an SM holds as many
//! at a time as its warps, the memory configuration's block slots, shared
//! memory and registers allow (at least one), and takes the next when one
//! finishes. SMs run one after another, each against the L2 the earlier
//! ones left (sim-kernel runs them in epochs side by side; a trace's
//! SMs here do not contend at L2 in time).

use crate::error::AccelError;
use crate::opcode::Class;
use crate::program::{build, Built};
use crate::read::Kernel;
use sim_core::sass_table::SassArch;
use sim_core::{
    Completion, External, ExternalRequest, OpStats, Progress, Report, SchedPolicy, Sm, SmConfig,
    Stats,
};
use sim_isa::exec::Accesses;
use sim_isa::{Space, WARP_SIZE};
use sim_kernel::{Gpu, Kind, MemConfig, SmMem};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// How to run a kernel trace.
#[derive(Clone, Debug)]
pub struct Options {
    /// The SM.
    pub config: SmConfig,
    /// The warp scheduler.
    pub policy: SchedPolicy,
    /// The memory hierarchy.
    pub memory: MemConfig,
    /// SMs to deal blocks to (`None`: the memory configuration's GPU).
    pub sms: Option<u32>,
}

/// One kernel's run.
#[derive(Clone, Debug)]
pub struct KernelRun {
    /// The trace file.
    pub file: String,
    /// The kernel's (mangled) name.
    pub name: String,
    /// The statistics: `per_opcode` is keyed by the traced SASS opcode.
    pub report: Report,
    /// The one warning about approximated opcodes, if any.
    pub warning: Option<String>,
    /// Memory instructions sent to the memory model.
    pub memory_instructions: u64,
    /// Distinct 32-byte sectors of the global and local loads, stores and
    /// atomics, summed over their warp instructions (the coalesced traffic
    /// to L2 that nvprof's `l2_global_load_bytes` counts in sectors).
    pub sectors: Sectors,
}

/// Sectors by kind of access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sectors {
    /// Of loads.
    pub load: u64,
    /// Of stores.
    pub store: u64,
    /// Of atomics.
    pub atomic: u64,
}

/// Distinct 32-byte sectors `acc` touches.
fn sectors_of(acc: &Accesses) -> u64 {
    let mut s: Vec<u64> = Vec::with_capacity(WARP_SIZE);
    let last = u64::from(acc.bytes.max(1)) - 1;
    for lane in 0..WARP_SIZE {
        if acc.lanes >> lane & 1 == 1 {
            let a = acc.addrs[lane];
            s.extend(a / 32..=a.saturating_add(last) / 32);
        }
    }
    s.sort_unstable();
    s.dedup();
    s.len() as u64
}

/// A memory instruction queued for its warp's issue.
#[derive(Clone, Copy)]
struct MemReq {
    start: u32,
    mask: u32,
    width: u32,
    space: Space,
    kind: Kind,
    opcode: u16,
}

/// The host side of one SM's run: the memory model and the barriers.
struct Host<'a> {
    k: &'a Kernel,
    gpu: &'a Gpu,
    mem: SmMem,
    class: &'a [Class],
    queues: HashMap<u32, VecDeque<MemReq>>,
    /// Warps whose barrier issued since the host last looked.
    arrived: Vec<u32>,
    /// Per traced opcode: memory latency (count, sum, min, max).
    lat: HashMap<u16, (u64, u64, u64, u64)>,
    requests: u64,
    sectors: Sectors,
}

impl External for Host<'_> {
    fn issue(&mut self, req: &ExternalRequest<'_>) -> Option<Completion> {
        let now = req.cycle;
        match self.class.get(req.index as usize) {
            Some(Class::Barrier) => {
                self.arrived.push(req.warp_id);
                return Some(Completion::at(now + 1));
            }
            Some(Class::Alu) | None => return Some(Completion::at(now + 1)),
            Some(Class::Load(_) | Class::Store(_) | Class::Atomic(_)) => {}
        }
        let q = self.queues.get_mut(&req.warp_id)?;
        let Some(m) = q.pop_front() else {
            return Some(Completion::at(now + 1));
        };
        let mut acc = Accesses {
            lanes: 0,
            addrs: [0; WARP_SIZE],
            bytes: m.width,
            space: m.space,
        };
        let addrs = self.k.lane_addrs(m.start, m.mask);
        let lanes = (0..WARP_SIZE as u32).filter(|l| m.mask >> l & 1 == 1);
        for (lane, &a) in lanes.zip(addrs) {
            acc.addrs[lane as usize] = a;
            acc.lanes |= 1 << lane;
        }
        let done = if acc.lanes == 0 {
            now + 1
        } else {
            self.mem.access(self.gpu, now, &acc, m.kind).max(now + 1)
        };
        self.requests += 1;
        if matches!(m.space, Space::Global | Space::Local | Space::Generic) {
            let n = sectors_of(&acc);
            match m.kind {
                Kind::Load => self.sectors.load += n,
                Kind::Store => self.sectors.store += n,
                Kind::Atomic => self.sectors.atomic += n,
            }
        }
        let e = self.lat.entry(m.opcode).or_insert((0, 0, u64::MAX, 0));
        let l = done - now;
        *e = (e.0 + 1, e.1 + l, e.2.min(l), e.3.max(l));
        Some(Completion::at(done))
    }
}

/// One warp's place in its trace.
struct WarpState {
    block: usize,
    /// Index of the warp in the block's list.
    slot: usize,
    /// Next instruction to push.
    next: usize,
    /// Barriers in its trace.
    bars: u32,
}

/// A block being run.
struct BlockState {
    warps: Vec<u32>,
    live: u32,
    /// Barrier generation waited for, and arrivals per generation.
    gen: u32,
    arrived: Vec<u32>,
}

/// Runs kernel `k` with `opts`.
pub fn run_kernel(k: &Kernel, opts: &Options) -> Result<KernelRun, AccelError> {
    let arch = SassArch::from_lowering(opts.config.lowering);
    let built = build(k, &opts.config, arch)?;
    let warning = crate::opcode::warning(arch.unwrap_or(SassArch::Sm35), &built.mapped);
    let nsm = opts.sms.unwrap_or(opts.memory.sms).max(1) as usize;
    let nsm = nsm.min(k.blocks.len().max(1));
    let mut gpu = Gpu::new(opts.memory.clone(), &[]);
    let mut per_sm = Vec::with_capacity(nsm);
    let mut lat: HashMap<u16, (u64, u64, u64, u64)> = HashMap::new();
    let mut requests = 0;
    let mut sectors = Sectors::default();
    for s in 0..nsm {
        let blocks: Vec<usize> = (s..k.blocks.len()).step_by(nsm).collect();
        let mut host = Host {
            k,
            gpu: &gpu,
            mem: SmMem::default(),
            class: &built.class,
            queues: HashMap::new(),
            arrived: Vec::new(),
            lat: HashMap::new(),
            requests: 0,
            sectors: Sectors::default(),
        };
        let stats = run_sm(k, &built, opts, &blocks, &mut host)?;
        let mut mem = std::mem::take(&mut host.mem);
        requests += host.requests;
        sectors.load += host.sectors.load;
        sectors.store += host.sectors.store;
        sectors.atomic += host.sectors.atomic;
        for (op, v) in host.lat {
            let e = lat.entry(op).or_insert((0, 0, u64::MAX, 0));
            *e = (e.0 + v.0, e.1 + v.1, e.2.min(v.2), e.3.max(v.3));
        }
        gpu.merge(&mut mem);
        per_sm.push(stats);
    }
    let mut stats = Stats::merge(&per_sm);
    stats.per_opcode = sass_opcodes(k, &lat);
    Ok(KernelRun {
        file: k.file.clone(),
        name: k.header.name.clone(),
        report: Report {
            config: opts.config.name(),
            policy: opts.policy,
            sms: nsm,
            stats,
            per_sm,
        },
        warning,
        memory_instructions: requests,
        sectors,
    })
}

/// Per traced opcode: warp and thread instructions from the trace; for
/// memory instructions, the latency the memory model gave.
fn sass_opcodes(k: &Kernel, lat: &HashMap<u16, (u64, u64, u64, u64)>) -> BTreeMap<String, OpStats> {
    let mut out: BTreeMap<String, OpStats> = BTreeMap::new();
    for i in k
        .blocks
        .iter()
        .flat_map(|b| &b.warps)
        .flat_map(|w| &w.insts)
    {
        let name = k
            .opcodes
            .get(usize::from(i.opcode))
            .cloned()
            .unwrap_or_default();
        let e = out.entry(name).or_default();
        e.count += 1;
        e.micro_ops += 1;
        e.thread_instructions += u64::from(i.mask.count_ones());
    }
    for (&op, &(_, sum, min, max)) in lat {
        if let Some(e) = k.opcodes.get(usize::from(op)).and_then(|n| out.get_mut(n)) {
            e.latency_sum = sum;
            e.latency_min = min;
            e.latency_max = max;
        }
    }
    out
}

/// Lanes of warp `w` of a block of `threads` threads.
fn warp_lanes(threads: u64, w: u32) -> u32 {
    let first = u64::from(w) * WARP_SIZE as u64;
    let n = threads.saturating_sub(first).min(WARP_SIZE as u64);
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// Whether a taken branch leads to `pc` from `prev`: `prev` is a branch
/// and `pc` is not the next instruction (Pascal's 8-byte instructions with
/// a control word every fourth slot, or 16-byte ones from Volta on).
fn after_branch(k: &Kernel, prev: Option<(u64, u16)>, pc: u64) -> bool {
    let Some((ppc, op)) = prev else { return false };
    let name = k.opcodes.get(usize::from(op)).map_or("", String::as_str);
    let base = name.split('.').next().unwrap_or("");
    let branch = matches!(
        base,
        "BRA" | "BRX" | "JMP" | "JMX" | "CALL" | "RET" | "BRK" | "CONT"
    );
    branch && !(pc > ppc && pc <= ppc + 16)
}

/// The SM's run state over its blocks.
struct Run<'a> {
    k: &'a Kernel,
    built: &'a Built,
    warps: HashMap<u32, WarpState>,
    blocks: HashMap<usize, BlockState>,
    wpb: u32,
}

impl Run<'_> {
    /// Pushes warp `gid`'s instructions up to and including its next
    /// barrier (or to its end, then closes it), queueing its memory
    /// instructions.
    fn feed(&mut self, sm: &mut Sm, host: &mut Host<'_>, gid: u32) -> Result<(), AccelError> {
        let Some(ws) = self.warps.get_mut(&gid) else {
            return Ok(());
        };
        let (b, slot) = (ws.block, ws.slot);
        let trace = &self.k.blocks[b].warps[slot];
        let idx = &self.built.index[b][slot];
        let mut steps = Vec::new();
        let q = host.queues.entry(gid).or_default();
        let mut prev = ws.next.checked_sub(1).map(|p| {
            let i = &trace.insts[p];
            (i.pc, i.opcode)
        });
        while ws.next < trace.insts.len() {
            let i = &trace.insts[ws.next];
            let pi = idx[ws.next];
            let class = self.built.class[pi as usize];
            steps.push((pi, i.mask, after_branch(self.k, prev, i.pc)));
            if let Some((width, start)) = i.mem {
                let (space, kind) = match class {
                    Class::Load(s) => (s, Kind::Load),
                    Class::Store(s) => (s, Kind::Store),
                    Class::Atomic(s) => (s, Kind::Atomic),
                    // A memory width on an arithmetic opcode: its
                    // addresses are not used.
                    Class::Alu | Class::Barrier => (Space::Global, Kind::Load),
                };
                if matches!(class, Class::Load(_) | Class::Store(_) | Class::Atomic(_)) {
                    q.push_back(MemReq {
                        start,
                        mask: i.mask,
                        width,
                        space,
                        kind,
                        opcode: i.opcode,
                    });
                }
            } else if matches!(class, Class::Load(_) | Class::Store(_) | Class::Atomic(_)) {
                // A memory opcode traced without addresses: no access.
                q.push_back(MemReq {
                    start: 0,
                    mask: 0,
                    width: 0,
                    space: Space::Global,
                    kind: Kind::Load,
                    opcode: i.opcode,
                });
            }
            prev = Some((i.pc, i.opcode));
            ws.next += 1;
            if class == Class::Barrier {
                break;
            }
        }
        let done = ws.next >= trace.insts.len();
        let err = |e: sim_core::SimError| AccelError::Sim {
            kernel: self.k.file.clone(),
            message: e.to_string(),
        };
        sm.push_executed_all(gid, &steps).map_err(err)?;
        if done {
            sm.close_warp(gid).map_err(err)?;
        }
        Ok(())
    }

    /// Makes block `b` resident: adds its warps and feeds each.
    fn admit(&mut self, sm: &mut Sm, host: &mut Host<'_>, b: usize) -> Result<(), AccelError> {
        let threads = self.k.header.block_threads();
        let mut gids = Vec::new();
        for (slot, w) in self.k.blocks[b].warps.iter().enumerate() {
            let gid = b as u32 * self.wpb + w.index;
            let bars = self.built.index[b][slot]
                .iter()
                .filter(|&&i| self.built.class[i as usize] == Class::Barrier)
                .count() as u32;
            self.warps.insert(
                gid,
                WarpState {
                    block: b,
                    slot,
                    next: 0,
                    bars,
                },
            );
            sm.add_executed_warp(gid, warp_lanes(threads, w.index))
                .map_err(|e| AccelError::Sim {
                    kernel: self.k.file.clone(),
                    message: e.to_string(),
                })?;
            gids.push(gid);
        }
        self.blocks.insert(
            b,
            BlockState {
                live: gids.len() as u32,
                warps: gids.clone(),
                gen: 0,
                arrived: Vec::new(),
            },
        );
        for gid in gids {
            self.feed(sm, host, gid)?;
        }
        Ok(())
    }

    /// Counts barrier arrivals and releases each generation every warp
    /// that reaches it has issued. Returns whether any warp was fed.
    fn barriers(&mut self, sm: &mut Sm, host: &mut Host<'_>) -> Result<bool, AccelError> {
        let mut touched = Vec::new();
        for gid in std::mem::take(&mut host.arrived) {
            let Some(b) = self.warps.get(&gid).map(|w| w.block) else {
                continue;
            };
            let Some(bs) = self.blocks.get_mut(&b) else {
                continue;
            };
            // A warp is fed past a barrier only once it opens, so it
            // arrives once per generation.
            bs.arrived.push(gid);
            touched.push(b);
        }
        let mut fed = false;
        touched.sort_unstable();
        touched.dedup();
        for b in touched {
            while let Some(bs) = self.blocks.get(&b) {
                let gen = bs.gen;
                let expected: Vec<u32> = bs
                    .warps
                    .iter()
                    .copied()
                    .filter(|g| self.warps.get(g).is_some_and(|w| w.bars > gen))
                    .collect();
                // A warp arrives at generation `gen` once per generation, in order.
                let here = bs.arrived.iter().filter(|g| expected.contains(g)).count();
                if expected.is_empty() || here < expected.len() {
                    break;
                }
                if let Some(bs) = self.blocks.get_mut(&b) {
                    for g in &expected {
                        if let Some(p) = bs.arrived.iter().position(|x| x == g) {
                            bs.arrived.remove(p);
                        }
                    }
                    bs.gen += 1;
                }
                for g in expected {
                    self.feed(sm, host, g)?;
                    fed = true;
                }
            }
        }
        Ok(fed)
    }
}

/// Whether block `b` fits beside `resident` blocks of `warps` warps.
fn fits(k: &Kernel, opts: &Options, resident: u32, warps: u32, wpb: u32) -> bool {
    if resident == 0 {
        return true;
    }
    let m = &opts.memory;
    let smem = k.header.shmem.saturating_mul(u64::from(resident) + 1);
    let regs = m.block_registers(k.header.nregs, wpb) * (u64::from(resident) + 1);
    resident < m.blocks_per_sm
        && warps + wpb <= opts.config.resident_warps
        && smem <= m.smem_per_sm
        && regs <= u64::from(m.regs_per_sm)
}

/// Runs `blocks` of `k` on one SM; returns its statistics.
fn run_sm(
    k: &Kernel,
    built: &Built,
    opts: &Options,
    blocks: &[usize],
    host: &mut Host<'_>,
) -> Result<Stats, AccelError> {
    let err = |e: sim_core::SimError| AccelError::Sim {
        kernel: k.file.clone(),
        message: e.to_string(),
    };
    let mut sm = Sm::from_tables(&built.tables, opts.policy);
    for (i, c) in built.class.iter().enumerate() {
        if *c != Class::Alu {
            sm.mark_external(i as u32).map_err(err)?;
        }
    }
    let wpb = k.header.warps_per_block();
    let mut run = Run {
        k,
        built,
        warps: HashMap::new(),
        blocks: HashMap::new(),
        wpb,
    };
    let mut pending: VecDeque<usize> = blocks.iter().copied().collect();
    let (mut resident, mut warps) = (0u32, 0u32);
    let mut retired = Vec::new();
    let mut still = 0;
    loop {
        let mut changed = false;
        while let Some(&b) = pending.front() {
            let n = k.blocks[b].warps.len() as u32;
            if !fits(k, opts, resident, warps, n.max(1)) {
                break;
            }
            pending.pop_front();
            run.admit(&mut sm, host, b)?;
            resident += 1;
            warps += n;
            changed = true;
        }
        let before = sm.cycle();
        let p = sm.run_until_idle(host).map_err(err)?;
        changed |= run.barriers(&mut sm, host)?;
        retired.clear();
        sm.take_retired_into(&mut retired);
        for gid in &retired {
            changed = true;
            let Some(b) = run.warps.remove(gid).map(|w| w.block) else {
                continue;
            };
            host.queues.remove(gid);
            let done = run.blocks.get_mut(&b).is_some_and(|bs| {
                bs.live -= 1;
                bs.live == 0
            });
            if done {
                let n = run.blocks.remove(&b).map_or(0, |bs| bs.warps.len() as u32);
                resident -= 1;
                warps -= n;
            }
        }
        if p == Progress::Done && pending.is_empty() && run.blocks.is_empty() {
            break;
        }
        if !changed && sm.cycle() == before {
            still += 1;
            if still > 2 {
                return Err(AccelError::Sim {
                    kernel: k.file.clone(),
                    message: format!(
                        "no progress at cycle {}: warps wait at a barrier the rest of their block never reaches",
                        sm.cycle()
                    ),
                });
            }
        } else {
            still = 0;
        }
    }
    Ok(sm.stats())
}
