//! The generator's model of an instruction: enough structure to mutate one
//! part (a type, a selector, an operand) and render the text again.

/// A value operand: register slot or immediate text.
#[derive(Clone, Debug)]
pub enum Src {
    /// Register index (1..=3 keeps every pool valid).
    Reg(u8),
    /// Immediate spelling.
    Imm(String),
}

/// A predicate operand `{!}%pN` or an immediate.
#[derive(Clone, Debug)]
pub enum PredV {
    /// Register, negated or not.
    Reg(bool, u8),
    /// Immediate spelling (`1`, `0`).
    Imm(String),
}

/// One generated instruction, semantic enough to re-render after a type change.
#[derive(Clone, Debug)]
pub enum Gen {
    /// `vop2/vop4/vset2/vset4`.
    Video(Video),
    /// `set` / `setp`.
    Set(Set),
    /// `selp`.
    Selp(Selp),
    /// `slct`.
    Slct(Slct),
}

/// `vop2/vop4/vset2/vset4`.
#[derive(Clone, Debug)]
pub struct Video {
    /// `vadd`, ..., `vset` (or a wrong mnemonic).
    pub op: String,
    /// `2` or `4` (or a wrong width).
    pub n: String,
    /// `.sat` written before the types.
    pub sat_first: bool,
    /// Types, in order.
    pub types: Vec<String>,
    /// vset comparison (or a stray one).
    pub cmp: Option<String>,
    /// Secondary modifiers after the types (`sat`, `add`, ...).
    pub sec: Vec<String>,
    /// Destination mask.
    pub mask: Option<String>,
    /// `a` selector.
    pub asel: Option<String>,
    /// `b` selector.
    pub bsel: Option<String>,
    /// `c` suffix (always a near-miss).
    pub csel: Option<String>,
    /// Register slots d, a, b, c.
    pub regs: [u8; 4],
    /// Operand index replaced by an immediate.
    pub imm: Option<usize>,
}

/// `set` / `setp`.
#[derive(Clone, Debug)]
pub struct Set {
    /// `set` or `setp`.
    pub mnem: &'static str,
    /// Comparison.
    pub cmp: String,
    /// BoolOp.
    pub bool_op: Option<String>,
    /// `.ftz`.
    pub ftz: bool,
    /// Put `.ftz` before the comparison (a wrong order).
    pub ftz_first: bool,
    /// dtype, stype for set; type for setp (any count in near-misses).
    pub types: Vec<String>,
    /// set: `[d]`; setp: `[p]` or `[p, q]`, `None` = sink `_`.
    pub dsts: Vec<Option<u8>>,
    /// Sources.
    pub a: Src,
    /// Second source.
    pub b: Src,
    /// `{!}c` of the BoolOp.
    pub c: Option<PredV>,
}

/// `selp`.
#[derive(Clone, Debug)]
pub struct Selp {
    /// Types (one when valid).
    pub types: Vec<String>,
    /// Extra modifiers (near-misses).
    pub mods: Vec<String>,
    /// Destination slot.
    pub d: u8,
    /// Sources.
    pub a: Src,
    /// Second source.
    pub b: Src,
    /// Predicate.
    pub c: PredV,
}

/// `slct`.
#[derive(Clone, Debug)]
pub struct Slct {
    /// `.ftz`.
    pub ftz: bool,
    /// dtype, ctype.
    pub types: Vec<String>,
    /// Destination slot.
    pub d: u8,
    /// Sources.
    pub a: Src,
    /// Second source.
    pub b: Src,
    /// Sign source.
    pub c: Src,
}
