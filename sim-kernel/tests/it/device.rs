//! A device whose memory and modules persist across launches: the kernels
//! of tests/data/device/device.cu as nvcc 13.0 compiles them (device.ptx).

use sim_kernel::device::{DEVICE_BASE, DEVICE_SPACE};
use sim_kernel::{Device, DeviceError, KernelError, ModuleId, RunOptions, SymbolSpace};

const PTX: &str = include_str!("../data/device/device.ptx");

fn device() -> Device {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 4);
    opts.max_instructions = 1_000_000;
    Device::new(opts)
}

fn loaded() -> (Device, ModuleId) {
    let mut d = device();
    let m = d.load_module("device.ptx", PTX).unwrap();
    (d, m)
}

/// The packed parameter buffer of `entry` from each parameter's bytes.
fn pack(d: &Device, m: ModuleId, entry: &str, args: &[&[u8]]) -> Vec<u8> {
    let slots = d.params(m, entry).unwrap();
    assert_eq!(slots.len(), args.len(), "{entry}'s parameters");
    let size = slots.iter().map(|s| s.offset + s.size).max().unwrap_or(0);
    let mut out = vec![0u8; size as usize];
    for (s, a) in slots.iter().zip(args) {
        assert_eq!(s.size, a.len() as u64, "{entry}: parameter {}", s.name);
        out[s.offset as usize..][..a.len()].copy_from_slice(a);
    }
    out
}

/// `n` little-endian values of `N` bytes each at `addr`, made by `from`.
fn read_as<T, const N: usize>(d: &Device, addr: u64, n: usize, from: fn([u8; N]) -> T) -> Vec<T> {
    let mut b = vec![0u8; N * n];
    d.read(addr, &mut b).unwrap();
    b.chunks(N).map(|c| from(c.try_into().unwrap())).collect()
}

/// `n` little-endian `i32`s at `addr` (the other device tests read through it too).
pub(crate) fn ints(d: &Device, addr: u64, n: usize) -> Vec<i32> {
    read_as(d, addr, n, i32::from_le_bytes)
}

#[test]
fn device_is_send() {
    fn send<T: Send>() {}
    send::<Device>();
}

#[test]
fn second_launch_reads_what_the_first_wrote() {
    let (mut d, m) = loaded();
    let n = 300i32;
    let a = d.malloc(4 * n as u64).unwrap();
    assert!((DEVICE_BASE..DEVICE_BASE + DEVICE_SPACE).contains(&a) && a % 256 == 0);
    let p = pack(&d, m, "fill_idx", &[&a.to_le_bytes(), &n.to_le_bytes()]);
    let r = d
        .launch(m, "fill_idx", [3, 1, 1], [128, 1, 1], 0, &p)
        .unwrap();
    assert_eq!(r.warps, 12);
    assert!(r.timed.cycles > 0);
    let p = pack(&d, m, "add_one", &[&a.to_le_bytes(), &n.to_le_bytes()]);
    d.launch(m, "add_one", [3, 1, 1], [128, 1, 1], 0, &p)
        .unwrap();
    d.launch(m, "add_one", [3, 1, 1], [128, 1, 1], 0, &p)
        .unwrap();
    let want: Vec<i32> = (0..n).map(|i| 3 * i + 2).collect();
    assert_eq!(ints(&d, a, n as usize), want);
    // `counter`, a `.global` variable, counted both launches' threads.
    let mut c = [0u8; 4];
    d.read_symbol(m, "counter", 0, &mut c).unwrap();
    assert_eq!(i32::from_le_bytes(c), 2 * n);
    let s = d.symbol(m, "counter").unwrap();
    assert_eq!((s.space, s.size), (SymbolSpace::Global, 4));
    assert_eq!(
        ints(&d, s.addr, 1),
        vec![2 * n],
        "its address reads the same"
    );
}

#[test]
fn const_written_by_the_host_is_read_by_the_kernel() {
    let (mut d, m) = loaded();
    let s = d.symbol(m, "scale").unwrap();
    assert_eq!((s.space, s.addr, s.size), (SymbolSpace::Const, 0, 16));
    let scale: Vec<u8> = [0.5f32, -2.0, 8.0, 0.25]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    d.write_symbol(m, "scale", 0, &scale).unwrap();
    let mut back = [0u8; 16];
    d.read_symbol(m, "scale", 0, &mut back).unwrap();
    assert_eq!(back.as_slice(), scale.as_slice());
    let out = d.malloc(32).unwrap();
    let p = pack(
        &d,
        m,
        "scale_table",
        &[&out.to_le_bytes(), &8i32.to_le_bytes()],
    );
    d.launch(m, "scale_table", [1, 1, 1], [8, 1, 1], 0, &p)
        .unwrap();
    let got = read_as(&d, out, 8, f32::from_le_bytes);
    // scale[i % 4] * table[i % 4], table initialised to 1, 2, 3, 4.
    assert_eq!(got, vec![0.5, -4.0, 24.0, 1.0, 0.5, -4.0, 24.0, 1.0]);
    // The kernel set table[0] to 10: the next launch sees it.
    let mut t = [0u8; 4];
    d.read_symbol(m, "table", 0, &mut t).unwrap();
    assert_eq!(f32::from_le_bytes(t), 10.0);
    d.write_symbol(m, "scale", 4, &1.5f32.to_le_bytes())
        .unwrap();
    d.launch(m, "scale_table", [1, 1, 1], [8, 1, 1], 0, &p)
        .unwrap();
    assert_eq!(read_as(&d, out, 2, f32::from_le_bytes), vec![5.0, 3.0]);
    let e = d.write_symbol(m, "scale", 12, &[0; 8]).unwrap_err();
    assert!(e.to_string().contains("pass its end (16 bytes)"), "{e}");
    let e = d.read_symbol(m, "nothing", 0, &mut t).unwrap_err();
    assert!(matches!(e, DeviceError::NoSymbol { .. }), "{e}");
}

#[test]
fn dynamic_shared_memory_follows_the_static() {
    let (mut d, m) = loaded();
    let (blocks, threads) = (2u32, 64u32);
    let n = (blocks * threads) as usize;
    let a = d.malloc(4 * n as u64).unwrap();
    let init: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    d.write(a, &init).unwrap();
    let p = pack(&d, m, "reverse_dyn", &[&a.to_le_bytes()]);
    d.launch(
        m,
        "reverse_dyn",
        [blocks, 1, 1],
        [threads, 1, 1],
        4 * threads,
        &p,
    )
    .unwrap();
    let got = read_as(&d, a, n, f32::from_le_bytes);
    let t = threads as usize;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (blk, k) = (i / t, i % t);
            (blk * t + t - 1 - k) as f32 + (100 + k % 3) as f32
        })
        .collect();
    assert_eq!(got, want);
    let info = d.func_info(m, "reverse_dyn").unwrap();
    assert_eq!((info.static_shared, info.params_bytes), (12, 8));
}

#[test]
fn dynamic_shared_memory_too_small_faults() {
    let (mut d, m) = loaded();
    let a = d.malloc(4 * 64).unwrap();
    let p = pack(&d, m, "reverse_dyn", &[&a.to_le_bytes()]);
    // 64 threads store 256 bytes into 128.
    let e = d
        .launch(m, "reverse_dyn", [1, 1, 1], [64, 1, 1], 128, &p)
        .unwrap_err();
    assert!(
        matches!(&e, DeviceError::Kernel(k) if matches!(**k, KernelError::Fault { .. })),
        "{e}"
    );
}

#[test]
fn a_fault_breaks_the_device_for_good() {
    let (mut d, m) = loaded();
    let a = d.malloc(64).unwrap();
    let p = pack(&d, m, "out_of_bounds", &[&a.to_le_bytes()]);
    let e = d
        .launch(m, "out_of_bounds", [1, 1, 1], [32, 1, 1], 0, &p)
        .unwrap_err();
    let first = e.to_string();
    assert!(
        matches!(&e, DeviceError::Kernel(k) if matches!(**k, KernelError::Fault { .. })),
        "{e}"
    );
    assert!(first.contains("device.ptx:"), "{first}");
    assert_eq!(d.broken(), Some(first.as_str()));
    for e in [
        d.malloc(16).unwrap_err(),
        d.write(a, &[1]).unwrap_err(),
        d.launch(m, "fill_idx", [1, 1, 1], [1, 1, 1], 0, &[0; 12])
            .unwrap_err(),
    ] {
        assert!(matches!(&e, DeviceError::Broken(m) if *m == first), "{e}");
    }
    assert!(d.read(a, &mut [0u8; 4]).is_err());
}

#[test]
fn a_trap_breaks_the_device() {
    let (mut d, m) = loaded();
    let a = d.malloc(128).unwrap();
    let p = pack(&d, m, "trapper", &[&a.to_le_bytes()]);
    let e = d
        .launch(m, "trapper", [1, 1, 1], [32, 1, 1], 0, &p)
        .unwrap_err();
    assert!(
        matches!(&e, DeviceError::Kernel(k) if matches!(**k, KernelError::Trap { .. })),
        "{e}"
    );
    assert!(matches!(d.free(a), Err(DeviceError::Broken(_))));
}

#[test]
fn refused_launches_leave_the_device_whole() {
    let (mut d, m) = loaded();
    let a = d.malloc(16).unwrap();
    d.write(a, &[7; 16]).unwrap();
    let e = d
        .launch(m, "fill_idx", [1, 1, 1], [32, 1, 1], 0, &[0; 8])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "fill_idx takes 12 bytes of parameters; the launch gives 8"
    );
    let p = pack(&d, m, "fill_idx", &[&a.to_le_bytes(), &4i32.to_le_bytes()]);
    for (grid, block, dynamic, what) in [
        ([1, 1, 1], [1025, 1, 1], 0, "block dimension 0 is 1025"),
        ([1, 1, 1], [1, 1, 65], 0, "block dimension 2 is 65"),
        ([1, 0, 1], [1, 1, 1], 0, "zero dimension"),
        ([1, 1, 1], [32, 32, 2], 0, "a block of 2048 threads"),
        ([1, 1, 1], [32, 1, 1], 1 << 20, "bytes of shared memory"),
    ] {
        let e = d
            .launch(m, "fill_idx", grid, block, dynamic, &p)
            .unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
    }
    let e = d
        .launch(m, "nope", [1, 1, 1], [1, 1, 1], 0, &[])
        .unwrap_err();
    assert!(e.to_string().contains("no .entry named 'nope'"), "{e}");
    assert!(d.broken().is_none());
    assert_eq!(ints(&d, a, 1), vec![0x0707_0707]);
    d.launch(m, "fill_idx", [1, 1, 1], [4, 1, 1], 0, &p)
        .unwrap();
    assert_eq!(ints(&d, a, 4), vec![0, 3, 6, 9]);
}

#[test]
fn params_of_every_kind_and_an_inlined_call() {
    let (mut d, m) = loaded();
    let out = d.malloc(7 * 8).unwrap();
    let slots = d.params(m, "params_mix").unwrap();
    let shape: Vec<(u64, u64, u64)> = slots.iter().map(|s| (s.offset, s.size, s.align)).collect();
    assert_eq!(
        shape,
        vec![
            (0, 8, 8),
            (8, 8, 8),
            (16, 1, 1),
            (18, 2, 2),
            (20, 1, 1),
            (24, 16, 8)
        ]
    );
    let mut mix = Vec::new();
    mix.extend_from_slice(&(-7i32).to_le_bytes());
    mix.extend_from_slice(&2.5f32.to_le_bytes());
    mix.extend_from_slice(&0.125f64.to_le_bytes());
    let p = pack(
        &d,
        m,
        "params_mix",
        &[
            &out.to_le_bytes(),
            &1.75f64.to_le_bytes(),
            &(-3i8).to_le_bytes(),
            &(-300i16).to_le_bytes(),
            &[200u8],
            &mix,
        ],
    );
    d.launch(m, "params_mix", [1, 1, 1], [1, 1, 1], 0, &p)
        .unwrap();
    let got = read_as(&d, out, 7, f64::from_le_bytes);
    assert_eq!(got, vec![3.5, -3.0, -300.0, 200.0, -7.0, 2.5, 0.125]);
}

#[test]
fn allocation_rules() {
    let mut d = device();
    let a = d.malloc(100).unwrap();
    let z1 = d.malloc(0).unwrap();
    let z2 = d.malloc(0).unwrap();
    let b = d.malloc(1000).unwrap();
    assert_eq!(a, DEVICE_BASE);
    let all = [a, z1, z2, b];
    assert!(all.windows(2).all(|w| w[0] + 256 < w[1]), "{all:x?}");
    assert!(all.iter().all(|x| x % 256 == 0));
    assert_eq!(d.allocation(a + 99), Some((a, 100)));
    assert_eq!(d.allocation(a + 100), None);
    assert_eq!(d.allocation(z1), Some((z1, 0)));
    let mut buf = [1u8; 8];
    d.read(b + 992, &mut buf).unwrap();
    assert_eq!(buf, [0; 8], "zero-filled");
    let e = d.read(b + 996, &mut buf).unwrap_err();
    assert!(
        e.to_string()
            .contains("passes the end of the allocation of 1000 bytes"),
        "{e}"
    );
    let e = d.write(a - 1, &[1]).unwrap_err();
    assert!(e.to_string().contains("no allocation holds it"), "{e}");
    d.fill(b, 0xab, 1000).unwrap();
    d.write(a, &[1, 2, 3, 4]).unwrap();
    d.copy(b + 10, a, 4).unwrap();
    d.copy(b + 11, b + 10, 4).unwrap();
    let mut c = [0u8; 6];
    d.read(b + 10, &mut c).unwrap();
    assert_eq!(c, [1, 1, 2, 3, 4, 0xab]);
    assert!(d.copy(a, b, 200).is_err());
    // Freeing: only an allocation's first byte.
    let e = d.free(b + 4).unwrap_err();
    assert!(e.to_string().contains("4 bytes into the one at"), "{e}");
    assert!(matches!(
        d.free(0x1234),
        Err(DeviceError::InvalidPointer { .. })
    ));
    let held = d.memory_held();
    d.free(b).unwrap();
    assert_eq!(d.memory_held(), held - 1000);
    assert!(matches!(d.free(b), Err(DeviceError::InvalidPointer { .. })));
    assert!(d.read(b, &mut c).is_err(), "freed");
    // The lowest gap that fits is reused.
    assert_eq!(d.malloc(512).unwrap(), b);
}

#[test]
fn malloc_at_and_overlaps() {
    let mut d = device();
    let host = 0x7f12_3456_7000u64;
    d.malloc_at(host, 4096).unwrap();
    d.write(host + 4000, &[9; 96]).unwrap();
    for (addr, bytes) in [
        (host + 4095, 1),
        (host - 16, 17),
        (host, 0),
        (host + 100, 8),
    ] {
        let e = d.malloc_at(addr, bytes).unwrap_err();
        assert!(
            matches!(e, DeviceError::Overlap { base, len: 4096, .. } if base == host),
            "{e}"
        );
    }
    d.malloc_at(host + 4096, 0).unwrap();
    d.malloc_at(host - 16, 16).unwrap();
    d.free(host).unwrap();
    d.malloc_at(host + 8, 8).unwrap();
}

#[test]
fn the_memory_cap_is_a_clear_error() {
    let mut d = device();
    d.set_memory_cap(1 << 20);
    let a = d.malloc(1 << 19).unwrap();
    let e = d.malloc((1 << 19) + 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "out of device memory: {} more bytes with {} held, more than the cap of {}",
            (1 << 19) + 1,
            1 << 19,
            1 << 20
        )
    );
    d.free(a).unwrap();
    d.malloc(1 << 20).unwrap();
    let mut d = device();
    let e = d.malloc(u64::MAX).unwrap_err();
    assert!(matches!(e, DeviceError::OutOfMemory { .. }), "{e}");
}

#[test]
fn module_globals_are_not_the_hosts_to_free() {
    let (mut d, m) = loaded();
    let s = d.symbol(m, "counter").unwrap();
    let e = d.free(s.addr).unwrap_err();
    assert!(
        e.to_string().contains("a module's .global variables"),
        "{e}"
    );
    assert_eq!(
        d.entries(m),
        [
            "fill_idx",
            "add_one",
            "scale_table",
            "reverse_dyn",
            "out_of_bounds",
            "trapper",
            "params_mix"
        ]
    );
    assert!(d.entries(ModuleId(9)).is_empty());
    // Two modules' variables of the same name are two variables.
    let m2 = d.load_module("again.ptx", PTX).unwrap();
    let s2 = d.symbol(m2, "counter").unwrap();
    assert_ne!(s.addr, s2.addr);
    d.write_symbol(m2, "counter", 0, &5i32.to_le_bytes())
        .unwrap();
    assert_eq!(ints(&d, s.addr, 1), vec![0]);
    let mut t = [0u8; 4];
    d.read_symbol(m2, "table", 12, &mut t).unwrap();
    assert_eq!(f32::from_le_bytes(t), 4.0, "initialised");
}

/// Where the dynamic shared array starts, as ptxas 13.0.88 places it on
/// sm_90 (`ptxas -arch=sm_90` of these declarations, the offset read from
/// nvdisasm's `VIADD R, R0, <offset>` off the shared window's base):
/// static bytes and alignment, the `.extern` arrays' alignments, offset.
const PTXAS_DYNAMIC_OFFSETS: [(u64, u32, &[u32], u64); 5] = [
    (12, 4, &[16], 0x10),
    (4, 4, &[4], 0x10),
    (40, 4, &[32], 0x40),
    (13, 1, &[4, 8], 0x10),
    (0, 4, &[16], 0),
];

#[test]
fn dynamic_shared_starts_where_ptxas_puts_it() {
    for (static_bytes, align, externs, want) in PTXAS_DYNAMIC_OFFSETS {
        let mut decl = String::new();
        for (k, a) in externs.iter().enumerate() {
            decl += &format!(".extern .shared .align {a} .b8 dyn{k}[];\n");
        }
        let stat = if static_bytes > 0 {
            format!(".shared .align {align} .b8 st[{static_bytes}];")
        } else {
            String::new()
        };
        // Each thread stores the address of one `.extern` array.
        let mut body = String::new();
        for k in 0..externs.len() {
            body += &format!(
                "mov.u32 %r1, dyn{k};\nst.global.u32 [%rd1+{}], %r1;\n",
                4 * k
            );
        }
        let ptx = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n{decl}\
             .visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{stat}\n\
             ld.param.u64 %rd1, [p];\n{body}ret;\n}}\n"
        );
        let mut d = device();
        let m = d.load_module("k.ptx", &ptx).unwrap();
        let out = d.malloc(16).unwrap();
        d.launch(m, "k", [1, 1, 1], [1, 1, 1], 64, &out.to_le_bytes())
            .unwrap();
        let got = ints(&d, out, externs.len());
        assert!(
            got.iter().all(|&g| g as u64 == want),
            "{static_bytes} static bytes, externs {externs:?}: {got:?}, ptxas {want:#x}"
        );
        let info = d.func_info(m, "k").unwrap();
        assert_eq!(info.static_shared, static_bytes);
    }
}

/// Allocations and frees in a pseudo-random order never overlap, stay
/// aligned with their gap, keep their bytes, and count what is held.
#[test]
fn allocations_stay_apart_under_churn() {
    let mut d = device();
    let mut live: Vec<(u64, u64, u8)> = Vec::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for step in 0..2000u32 {
        let r = next();
        if r % 3 == 0 && !live.is_empty() {
            let (a, n, tag) = live.swap_remove((r / 3) as usize % live.len());
            let mut b = vec![0u8; n as usize];
            d.read(a, &mut b).unwrap();
            assert!(
                b.iter().all(|&v| v == tag),
                "step {step}: {a:#x} lost its bytes"
            );
            d.free(a).unwrap();
        } else {
            let n = r >> 40 & 0x1fff;
            let a = d.malloc(n).unwrap();
            let tag = step as u8;
            d.fill(a, tag, n).unwrap();
            live.push((a, n, tag));
        }
        let held: u64 = live.iter().map(|l| l.1).sum();
        assert_eq!(d.memory_held(), held, "step {step}");
    }
    live.sort();
    for w in live.windows(2) {
        let (a, n, _) = w[0];
        assert_eq!(a % 256, 0);
        assert!(a + n.max(1) + 256 <= w[1].0, "{w:x?}");
    }
}
