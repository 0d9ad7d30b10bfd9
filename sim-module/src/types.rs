//! The parsed module as plain data: directives, variables, functions, statements.

use crate::error::Pos;
use sim_isa::{Guard, Instruction, IsaError, PtxVersion, RegId, Symbols};

sim_isa::type_set! {
    /// A PTX fundamental type, as registers, parameters and variables declare
    /// it: a set of sim-isa's type vocabulary ([`sim_isa::TypeName`]), wider
    /// than `sim_isa::Type` (which lists the types instructions here take):
    /// declarations also use `.b8`, `.b128`, `.u8`, `.s8` and `.tf32`, and no
    /// fp8 pair (`cvt`'s `.e4m3x2`).
    pub enum PtxType {
        B8, B16, B32, B64, B128,
        U8, U16, U32, U64,
        S8, S16, S32, S64,
        F16, F16x2, Bf16, Bf16x2, Tf32, F32, F64,
        Pred,
    }
}

impl PtxType {
    /// Size in bytes in memory (`.pred` counts as 1, as ptxas lays it out).
    pub fn size(self) -> u64 {
        use PtxType::*;
        match self {
            B8 | U8 | S8 | Pred => 1,
            B16 | U16 | S16 | F16 | Bf16 => 2,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 => 4,
            B64 | U64 | S64 | F64 => 8,
            B128 => 16,
        }
    }

    /// The sim-isa register type, where sim-isa has one.
    pub fn isa_type(self) -> Option<sim_isa::Type> {
        sim_isa::Type::from_word(self.word())
    }
}

/// A state space of variables and pointers.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    Global,
    Const,
    Shared,
    Local,
    Param,
    /// `.reg`: only a `.func` parameter lives here.
    Reg,
}

impl StateSpace {
    /// The space a directive names (`global`), without the dot.
    pub fn from_name(s: &str) -> Option<StateSpace> {
        Some(match s {
            "global" => StateSpace::Global,
            "const" => StateSpace::Const,
            "shared" => StateSpace::Shared,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            _ => return None,
        })
    }
}

/// One initialiser element of a variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// A number, as the raw bits of the variable's type (floats as IEEE bits).
    Bits(u64),
    /// The address of a variable or function (`name`, `generic(name)`, `name+4`).
    Address {
        /// The symbol.
        symbol: String,
        /// Byte offset added to it.
        offset: i64,
    },
}

/// A `.global`, `.const`, `.shared`, `.local` or `.param` variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// Where it lives.
    pub space: StateSpace,
    /// Element type.
    pub ty: PtxType,
    /// `.align N`, if given.
    pub align: Option<u32>,
    /// Array dimensions; `None` for `[]` (sized by the initialiser, or dynamic).
    pub dims: Vec<Option<u64>>,
    /// Size in bytes (0 for an `.extern` unsized array: dynamic shared memory).
    pub size: u64,
    /// Declared `.extern`.
    pub external: bool,
    /// Declared `.visible`.
    pub visible: bool,
    /// Initial contents, flattened in element order.
    pub init: Option<Vec<Init>>,
    /// Where it is declared.
    pub pos: Pos,
}

/// The `.ptr` attributes of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    /// The space it points into (`.ptr.global`), if named.
    pub space: Option<StateSpace>,
    /// `.ptr ... .align N`, if given.
    pub align: Option<u32>,
}

// A field list alike in shape to other records' (issue 27): its own fields, nothing to share.
/// A function or kernel parameter (or a `.func` return value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name (may be empty in prototypes).
    pub name: String,
    /// [`StateSpace::Param`], or [`StateSpace::Reg`] for a `.func`'s `.reg` parameter.
    pub space: StateSpace,
    /// Element type.
    pub ty: PtxType,
    /// `.align N`, if given.
    pub align: Option<u32>,
    /// Element count of an array parameter (`[N]`).
    pub array: Option<u64>,
    /// `.ptr` attributes, if given.
    pub ptr: Option<PtrAttr>,
    /// Size in bytes.
    pub size: u64,
    /// Byte offset in the parameter buffer (each aligned to its `.align` or its type).
    pub offset: u64,
    /// Where it is declared.
    pub pos: Pos,
}

/// `.entry` (a kernel) or `.func` (a device function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// `.entry`.
    Entry,
    /// `.func`.
    Func,
}

/// Linkage directive in front of a function or variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linkage {
    /// None given: visible in this module only.
    Internal,
    /// `.visible`.
    Visible,
    /// `.extern` (a declaration).
    Extern,
    /// `.weak`.
    Weak,
}

/// A performance-tuning directive (`.maxntid 256, 1, 1`, `.minnctapersm 2`, `.noreturn`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerfDirective {
    /// The directive without the dot (`maxntid`).
    pub name: String,
    /// Its numbers.
    pub values: Vec<u64>,
}

/// The step between consecutive functions' addresses ([`Module::function_address`]).
pub const FUNCTION_ADDRESS_STRIDE: u64 = 8;

// A field list alike in shape to other records' (issue 27): its own fields, nothing to share.
/// A function or kernel.
#[derive(Clone, Debug)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// `.entry` or `.func`.
    pub kind: FunctionKind,
    /// Linkage.
    pub linkage: Linkage,
    /// Return parameters of a `.func`.
    pub returns: Vec<Param>,
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// Performance-tuning directives.
    pub directives: Vec<PerfDirective>,
    /// The body; `None` for a declaration (prototype).
    pub body: Option<Body>,
    /// Where the name is.
    pub pos: Pos,
}

/// A `{ }` scope: the function body is scope 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The enclosing scope (`None` for the body).
    pub parent: Option<u32>,
    /// Where its `{` is.
    pub pos: Pos,
}

/// A declared register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Register {
    /// Its name as written.
    pub name: String,
    /// Its id in [`Body::symbols`], where it is named as written unless that name
    /// is taken by a register of another scope (then `name$1`, `name$2`, ...).
    pub id: RegId,
    /// Declared type.
    pub ty: PtxType,
    /// Declaring scope.
    pub scope: u32,
    /// Where it is declared.
    pub pos: Pos,
}

/// A label: the statement index it stands before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Its name.
    pub name: String,
    /// Index of the statement it labels (`statements.len()` at the end of the body).
    pub target: usize,
    /// Declaring scope.
    pub scope: u32,
    /// Where it is declared.
    pub pos: Pos,
}

// A field list alike in shape to other records' (issue 27): its own fields, nothing to share.
/// A function body.
#[derive(Clone, Debug)]
pub struct Body {
    /// Executable statements, in order.
    pub statements: Vec<Statement>,
    /// Labels.
    pub labels: Vec<Label>,
    /// Declared registers, in declaration order.
    pub registers: Vec<Register>,
    /// Register names and sim-isa types, for the instructions' [`RegId`]s.
    pub symbols: Symbols,
    /// Variables declared inside the body (`.shared`, `.local`, `.param`, `.const`).
    pub variables: Vec<Variable>,
    /// Scopes; index 0 is the body itself.
    pub scopes: Vec<Scope>,
    /// `.pragma` strings seen in the body.
    pub pragmas: Vec<String>,
    /// Byte range of the body in the module's source, from its `{` to past its `}`.
    pub span: (u32, u32),
    /// Names to check once the whole module is read (empty after parsing).
    pub(crate) pending: Vec<(String, Pos)>,
}

/// One executable statement.
#[derive(Clone, Debug)]
pub struct Statement {
    /// Where it starts (the guard or opcode).
    pub pos: Pos,
    /// Innermost enclosing scope.
    pub scope: u32,
    /// Its text with comments blanked, without the `;`.
    pub text: String,
    /// Byte range in the module's source, from its first token to past its `;`.
    pub span: (u32, u32),
    /// What it is.
    pub kind: StatementKind,
}

/// The three kinds of statements.
#[derive(Clone, Debug)]
pub enum StatementKind {
    /// An instruction sim-isa decoded.
    Instruction(Instruction),
    /// Control flow, read by this layer: `bra`, `ret`, `exit`, `call`.
    Control(Control),
    /// Valid PTX that simcli does not run (yet).
    Unimplemented(Unimplemented),
}

/// An instruction simcli does not implement, kept so a later stage can name it.
#[derive(Clone, Debug)]
pub struct Unimplemented {
    /// The opcode with its modifiers, as written (`ld.param.u64`).
    pub opcode: String,
    /// sim-isa's reason for rejecting it. Columns count in [`Statement::text`],
    /// except after a register renamed by scope (see [`Register`]), which sim-isa
    /// sees under its symbol name.
    pub isa: Option<IsaError>,
}

/// A control-flow statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Control {
    /// `@p` / `@!p`, in the body's symbols.
    pub guard: Option<Guard>,
    /// The operation.
    pub op: ControlOp,
}

/// Control-flow operations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlOp {
    /// `bra{.uni} label`.
    Bra {
        /// The label's name.
        target: String,
        /// Index into [`Body::labels`].
        label: usize,
        /// `.uni`: the branch is known not to diverge.
        uni: bool,
    },
    /// `ret{.uni}`.
    Ret {
        /// `.uni`.
        uni: bool,
    },
    /// `exit`.
    Exit,
    /// `trap` (`brkpt` too: without a debugger attached it stops the
    /// kernel as `trap` does): the launch ends with an error naming the
    /// thread and the line.
    Trap,
    /// `call{.uni} (rets), callee, (args){, prototype}`; falls through.
    Call {
        /// `.uni`.
        uni: bool,
        /// The function (or register holding its address).
        callee: String,
        /// Return-value parameters.
        rets: Vec<String>,
        /// Argument parameters.
        args: Vec<String>,
        /// The prototype label of an indirect call.
        prototype: Option<String>,
        /// An indirect call's register holding the address, where the
        /// callee is a visible register (the parser resolves it).
        address: Option<RegId>,
        /// A function simcli runs itself ([`Builtin`]), when the callee is one.
        builtin: Option<Builtin>,
    },
}

/// A function the simulator provides instead of a body: the module
/// declares it `.extern .func` (as nvcc declares `vprintf` for `printf`)
/// and calls it; the call stays a call, run by the launch engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Builtin {
    /// Which one.
    pub kind: BuiltinKind,
    /// The registers of its arguments, then of its results: resolved once
    /// the call's operands are registers (after inlining, where a call's
    /// `.param` variables become registers); empty before.
    pub args: Vec<RegId>,
    /// See `args`.
    pub rets: Vec<RegId>,
}

/// The functions the simulator provides, with their signatures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinKind {
    /// `int vprintf(const char *format, void *args)`: CUDA's device
    /// `printf`, as nvcc compiles it (a generic format address and a
    /// generic address of the argument buffer; the result `.b32`).
    Vprintf,
    /// `void __assertfail(const char *message, const char *file, unsigned
    /// line, const char *function, size_t charSize)`: what a failed device
    /// `assert` calls (the message is the condition's text); the thread
    /// prints the assertion and the kernel stops.
    AssertFail,
    /// `void *malloc(size_t size)`: device-side `malloc` (and C++ `new`,
    /// which nvcc compiles to it), from the device heap.
    Malloc,
    /// `void free(void *ptr)`: device-side `free` (and C++ `delete`).
    Free,
}

/// Each builtin: its name, its parameters' and results' sizes in bytes.
const BUILTINS: &[(BuiltinKind, &str, &[u64], &[u64])] = &[
    (BuiltinKind::Vprintf, "vprintf", &[8, 8], &[4]),
    (
        BuiltinKind::AssertFail,
        "__assertfail",
        &[8, 8, 4, 8, 8],
        &[],
    ),
    (BuiltinKind::Malloc, "malloc", &[8], &[8]),
    (BuiltinKind::Free, "free", &[8], &[]),
];

impl BuiltinKind {
    /// The builtin named `name`, if any.
    pub fn from_name(name: &str) -> Option<BuiltinKind> {
        BUILTINS.iter().find(|b| b.1 == name).map(|b| b.0)
    }

    fn row(self) -> (&'static str, &'static [u64], &'static [u64]) {
        BUILTINS
            .iter()
            .find(|b| b.0 == self)
            .map_or(("", &[][..], &[][..]), |b| (b.1, b.2, b.3))
    }

    /// Its name in PTX.
    pub fn name(self) -> &'static str {
        self.row().0
    }

    /// Whether `f` declares it: `.extern`, no body, its parameters and
    /// results of its sizes.
    pub fn declared_by(self, f: &Function) -> bool {
        let (name, params, rets) = self.row();
        let sizes = |v: &[Param]| v.iter().map(|p| p.size).collect::<Vec<_>>();
        f.name == name
            && f.kind == FunctionKind::Func
            && f.linkage == Linkage::Extern
            && f.body.is_none()
            && sizes(&f.params) == params
            && sizes(&f.returns) == rets
    }
}

/// `.target` operands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetDirective {
    /// The architecture (`sm_90`).
    pub arch: String,
    /// Further options (`texmode_independent`, `debug`).
    pub options: Vec<String>,
}

/// A parsed PTX module.
#[derive(Clone, Debug)]
pub struct Module {
    /// The file name errors and messages use.
    pub file: String,
    /// `.version`.
    pub version: Option<PtxVersion>,
    /// `.target`.
    pub target: Option<TargetDirective>,
    /// `.address_size` (32 or 64).
    pub address_size: Option<u32>,
    /// Module-scope variables.
    pub variables: Vec<Variable>,
    /// Functions and kernels, in order (declarations included).
    pub functions: Vec<Function>,
}

impl Module {
    /// The function or kernel named `name` that has a body.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions
            .iter()
            .find(|f| f.name == name && f.body.is_some())
    }

    /// The value a `.func`'s address has in registers and memory (`mov.u64
    /// %rd1, f`, an initialiser naming `f`): `8 * (k + 1)` for the module's
    /// `k`-th `.func` in order of first declaration. It has the shape of
    /// what ptxas 13.0.88 stores for a function pointer in a `.global` on
    /// sm_90, a byte offset into a descriptor table in constant bank 2 from
    /// 8 on (`indirect.ptx`'s `table[4] = {f0, f1, f2, f3}` holds 8, 16, 24,
    /// 32), but not its order (ptxas kept those values with `f0` declared
    /// last), and ptxas gives a pointer that stays in registers a code
    /// offset instead: a kernel cannot rely on either. Never 0, so a null
    /// pointer is no function ([`Module::function_at`] reads it back).
    /// `None` for a name that is no `.func`.
    pub fn function_address(&self, name: &str) -> Option<u64> {
        self.function_addresses()
            .into_iter()
            .find(|f| f.0 == name)
            .map(|f| f.1)
    }

    /// Every `.func`'s name and [`Module::function_address`], in order.
    pub fn function_addresses(&self) -> Vec<(&str, u64)> {
        let mut seen = std::collections::HashSet::new();
        self.functions
            .iter()
            .filter(|f| f.kind == FunctionKind::Func && seen.insert(f.name.as_str()))
            .zip(1u64..)
            .map(|(f, k)| (f.name.as_str(), FUNCTION_ADDRESS_STRIDE * k))
            .collect()
    }

    /// The `.func` with a body whose [`Module::function_address`] is `addr`.
    pub fn function_at(&self, addr: u64) -> Option<&Function> {
        let k = usize::try_from(addr / FUNCTION_ADDRESS_STRIDE).ok()?;
        if !addr.is_multiple_of(FUNCTION_ADDRESS_STRIDE) || k == 0 {
            return None;
        }
        let (name, _) = *self.function_addresses().get(k - 1)?;
        self.function(name).filter(|f| f.kind == FunctionKind::Func)
    }

    /// The kernels (`.entry` with a body), in order.
    pub fn entries(&self) -> impl Iterator<Item = &Function> {
        self.functions
            .iter()
            .filter(|f| f.kind == FunctionKind::Entry && f.body.is_some())
    }
}

impl Control {
    /// The registers the statement reads: its guard's, and an indirect
    /// call's address.
    pub fn reads(&self) -> impl Iterator<Item = RegId> + '_ {
        let address = match &self.op {
            ControlOp::Call { address, .. } => *address,
            ControlOp::Bra { .. } | ControlOp::Ret { .. } | ControlOp::Exit | ControlOp::Trap => {
                None
            }
        };
        // Two options flattened, not `guard.into_iter().chain(address)`:
        // rustc 1.95.0 with `-C target-cpu=x86-64-v3` (opt-level 3)
        // compiles that chain as a load of `address` whatever the variant
        // and its tag masked with "is a `Call`" as 0 or 1 (`shr 63; andn`),
        // exact only for a tag of 0 or 1, so a `ret` gave whatever bytes
        // lay there as a register (regalloc's `check` test). Reduced:
        //   enum Op { Call { callee: String, address: Option<u32> }, Bra(u64, u64, u64), Ret }
        //   struct Stmt { guard: Option<(u32, bool)>, op: Op }
        //   #[inline(never)] fn reads(s: &Stmt) -> impl Iterator<Item = u32> + '_ {
        //       let address = match &s.op { Op::Call { address, .. } => *address, Op::Bra(..) | Op::Ret => None };
        //       s.guard.map(|g| g.0).into_iter().chain(address)
        //   }
        //   reads(&Stmt { guard: None, op: Op::Bra(5, 5, 0x7ffe_0000_0006) }) yields 32766 (v3), nothing (default).
        [self.guard.map(|g| g.reg), address].into_iter().flatten()
    }
}

impl ControlOp {
    /// An indirect call through a register. In a flattened body (see
    /// [`crate::inline`]) only lanes whose address is no candidate
    /// function's reach one, and they stop the launch: like `trap`, it
    /// reads its registers and goes nowhere, so the analyses that give up
    /// at a call (dead statements, register allocation) see through it.
    pub fn is_indirect_call(&self) -> bool {
        matches!(
            self,
            ControlOp::Call {
                address: Some(_),
                builtin: None,
                ..
            }
        )
    }
}

impl Statement {
    /// "unsupported by simcli: OPCODE at FILE:LINE:COL" for an unimplemented statement.
    pub fn unsupported_message(&self, file: &str) -> Option<String> {
        match &self.kind {
            StatementKind::Unimplemented(u) => Some(format!(
                "unsupported by simcli: {} at {file}:{}",
                u.opcode, self.pos
            )),
            StatementKind::Instruction(_) | StatementKind::Control(_) => None,
        }
    }
}
