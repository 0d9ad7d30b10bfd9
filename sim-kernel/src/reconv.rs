//! The reconvergence stack a warp's control flow runs on: the engine's
//! (`engine/warp.rs`) and the recording check's (`record/flow.rs`), one
//! copy so that the check follows the engine exactly.

/// One entry: the lanes `mask` at statement `pc`, until they reach `rpc`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub pc: usize,
    pub rpc: usize,
    pub mask: u32,
}

/// Splits the top entry at a divergent branch.
#[inline]
pub(crate) fn diverge(
    stack: &mut Vec<Entry>,
    top: Entry,
    target: usize,
    taken: u32,
    reconv: usize,
) {
    if let Some(t) = stack.last_mut() {
        t.pc = reconv;
    }
    stack.push(Entry {
        pc: top.pc + 1,
        rpc: reconv,
        mask: top.mask & !taken,
    });
    stack.push(Entry {
        pc: target,
        rpc: reconv,
        mask: taken,
    });
}

/// Removes exiting lanes from every entry.
#[inline]
pub(crate) fn exit_lanes(stack: &mut Vec<Entry>, lanes: u32) {
    for e in stack.iter_mut() {
        e.mask &= !lanes;
    }
    pop_done(stack);
}

/// Pops entries that reached their reconvergence point or have no lanes.
#[inline]
pub(crate) fn pop_done(stack: &mut Vec<Entry>) {
    while let Some(t) = stack.last() {
        if t.pc == t.rpc || t.mask == 0 {
            stack.pop();
        } else {
            break;
        }
    }
}
