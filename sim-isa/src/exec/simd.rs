//! Lane kernels compiled twice: for the build's baseline CPU and for AVX2
//! with FMA (x86-64-v3), the second run where this CPU has them.
//!
//! A portable build (x86-64-v2: SSE4.2, no FMA) ran the 128^3 SGEMM launch
//! with 22% more host instructions than an x86-64-v3 one, and trace replay
//! with 14% more, nearly all of it in these kernels: without FMA hardware
//! `f32::mul_add` is a call to the software `fmaf` and the lane loop stops
//! vectorising, and the integer loops run at half the SIMD width
//! (docs/speed.md, "Portable builds"). Values are the same either way:
//! Rust never contracts `a * b + c` into an FMA, and `mul_add` is the one
//! correctly rounded operation on both paths.
//!
//! This is the one place sim-isa uses `unsafe`: calling a
//! `#[target_feature]` function from code compiled without those features.
//! Each call is behind [`wide`], which asks the CPU. Crates that allow no
//! `unsafe` (sim-kernel's functional path) get the same two copies of
//! their own code through [`twice`].

use std::sync::atomic::{AtomicU8, Ordering};

/// 0: not asked yet; 1: no; 2: yes.
static WIDE: AtomicU8 = AtomicU8::new(0);

/// Whether this CPU has every feature the wide kernels are compiled with
/// (asked once; one relaxed load after that). A build for them (x86-64-v3)
/// knows it at compile time: there each lane kernel calls its wide copy
/// straight, with no load and no test per call.
#[inline(always)]
pub fn wide() -> bool {
    if BUILT_WIDE {
        return true;
    }
    match WIDE.load(Ordering::Relaxed) {
        0 => ask(),
        v => v == 2,
    }
}

/// Code that [`twice`] compiles for the baseline and with the wide
/// features: a value holding the code's arguments, and the code.
pub trait Twice {
    /// What the code returns.
    type Out;
    /// The code. Must be `#[inline(always)]`: each copy holds all of it,
    /// and whatever it calls out of line runs as compiled for the baseline.
    fn run(self) -> Self::Out;
}

/// Runs `t`'s code as compiled with the wide features where [`wide`] says
/// the CPU has them, else as compiled for the baseline: what
/// [`wide_kernel`] does for sim-isa's lane kernels, for code in crates that
/// allow no `unsafe`. Where the build has the features, the code runs in
/// line with no test.
#[inline(always)]
#[allow(unsafe_code)]
pub fn twice<T: Twice>(t: T) -> T::Out {
    // Both copies are functions of their own, so that the caller is a test
    // and a call (and the baseline's copy of code that lost to inlining,
    // such as the word path's copies, stays out of line).
    #[inline(never)]
    fn base<T: Twice>(t: T) -> T::Out {
        t.run()
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(never)]
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    fn wide_copy<T: Twice>(t: T) -> T::Out {
        t.run()
    }
    if BUILT_WIDE {
        return t.run();
    }
    #[cfg(target_arch = "x86_64")]
    if wide() {
        // SAFETY: `wide_copy` is compiled for features that `wide()` has
        // just found on this CPU.
        return unsafe { wide_copy(t) };
    }
    base(t)
}

/// Whether the build itself has every feature of the wide copies.
const BUILT_WIDE: bool = cfg!(all(
    target_feature = "avx2",
    target_feature = "fma",
    target_feature = "bmi1",
    target_feature = "bmi2",
    target_feature = "lzcnt",
    target_feature = "popcnt"
));

#[cold]
fn ask() -> bool {
    #[cfg(target_arch = "x86_64")]
    let yes = std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("fma")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("popcnt");
    #[cfg(not(target_arch = "x86_64"))]
    let yes = false;
    WIDE.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
    yes
}

/// Defines a lane kernel (`#[inline(never)]`) whose body is compiled twice,
/// for the baseline and with the x86-64-v3 features, and run as the second
/// where [`wide`] says the CPU has them. Generic parameters are given twice:
/// declared (`[const K: usize]`) and as arguments (`[K]`).
///
/// After the parameters, `as (q: T = expr, ...)` gives the copies other
/// parameters, computed from the kernel's: a register file passed as a
/// slice of aligned registers (`&mut [Reg]`) carries that alignment into
/// the copies as a parameter attribute, so the AVX2 copy of a portable
/// build loads whole 32-byte vectors and folds them into its arithmetic
/// (see `WarpRegs`' storage).
macro_rules! wide_kernel {
    (
        $(#[$m:meta])*
        $vis:vis fn $name:ident [$($decl:tt)*] [$($arg:tt)*]
        ($($p:ident : $t:ty),* $(,)?) $body:block
    ) => {
        $crate::exec::simd::wide_kernel! {
            $(#[$m])*
            $vis fn $name [$($decl)*] [$($arg)*]
            ($($p: $t),*) as ($($p: $t = $p),*) $body
        }
    };
    (
        $(#[$m:meta])*
        $vis:vis fn $name:ident [$($decl:tt)*] [$($arg:tt)*]
        ($($p:ident : $t:ty),* $(,)?)
        as ($($q:ident : $u:ty = $e:expr),* $(,)?) $body:block
    ) => {
        $(#[$m])*
        #[inline(never)]
        #[allow(unsafe_code)]
        $vis fn $name<$($decl)*>($($p: $t),*) {
            #[inline(always)]
            fn body<$($decl)*>($($q: $u),*) $body
            // Both copies are functions of their own, so that this
            // dispatcher is a test and a tail call, with no frame.
            #[inline(never)]
            fn base<$($decl)*>($($q: $u),*) {
                body::<$($arg)*>($($q),*)
            }
            #[cfg(target_arch = "x86_64")]
            #[inline(never)]
            #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
            fn wide<$($decl)*>($($q: $u),*) {
                body::<$($arg)*>($($q),*)
            }
            $(let $q: $u = $e;)*
            #[cfg(target_arch = "x86_64")]
            if $crate::exec::simd::wide() {
                // SAFETY: `wide` is compiled for features that
                // `simd::wide()` has just found on this CPU.
                return unsafe { wide::<$($arg)*>($($q),*) };
            }
            base::<$($arg)*>($($q),*)
        }
    };
}
pub(crate) use wide_kernel;

/// Asks the CPU to bring the cache lines of `bytes` (each 64 bytes from
/// its start) into its caches, without waiting for them; changes no
/// value. A hint: a CPU or build without the instruction does nothing.
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let mut i = 0;
        while i < bytes.len() {
            // SAFETY: a prefetch reads nothing and cannot fault; the
            // address is inside `bytes`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().add(i).cast()) };
            i += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}
