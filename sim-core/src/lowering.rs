//! Machine-code expansion of PTX instructions: how many machine instructions
//! (micro-ops) NVIDIA's compiler emits for one PTX instruction, and how many of
//! them form its longest dependent chain (steps).
//!
//! The table `data/lowering.tsv` is derived by `tools/lowering/derive.py` from
//! ptxas + nvdisasm output (see docs/timing-model.md, "Lowering table"). It is embedded
//! with `include_str!` and parsed once per process.
//!
//! The variant key of an instruction is sim-isa's classification,
//! [`sim_isa::db::lowering_key`] (documented there); this module only
//! attaches the table's counts to it.

use crate::config::LoweringArch;
use sim_isa::{Instruction, Target};
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

/// The committed expansion table.
pub const TABLE_TSV: &str = include_str!("../data/lowering.tsv");

/// Cost of one PTX instruction in machine instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    /// Machine instructions (micro-ops), at least 1.
    pub uops: u16,
    /// Longest chain of dependent machine instructions, `1..=uops`.
    pub steps: u16,
    /// Whether the row came from the table (false: assumed native, 1/1).
    pub from_table: bool,
    /// The architecture has a table but no row for this key: the cost fell
    /// back to 1/1. The database test makes this impossible for every form
    /// a table architecture's target can run.
    pub missing: bool,
}

impl Cost {
    /// One native machine instruction.
    pub const NATIVE: Cost = Cost {
        uops: 1,
        steps: 1,
        from_table: false,
        missing: false,
    };
}

/// The architectures the table covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableArch {
    /// Kepler, from `sm_35` listings.
    Sm35,
    /// Maxwell, from `sm_53` counts.
    Sm53,
    /// Hopper, from `sm_90` listings.
    Sm90,
}

impl TableArch {
    /// All three, in the order of the per-arch maps.
    pub const ALL: [TableArch; 3] = [TableArch::Sm35, TableArch::Sm53, TableArch::Sm90];

    /// The table's architecture column.
    pub const fn name(self) -> &'static str {
        match self {
            TableArch::Sm35 => "sm_35",
            TableArch::Sm53 => "sm_53",
            TableArch::Sm90 => "sm_90",
        }
    }

    /// The target whose machine code the rows count.
    pub const fn target(self) -> Target {
        let sm = match self {
            TableArch::Sm35 => 35,
            TableArch::Sm53 => 53,
            TableArch::Sm90 => 90,
        };
        Target { sm, suffix: None }
    }

    /// The table an SM of `arch` reads, `None` for [`LoweringArch::Native`].
    pub const fn of(arch: LoweringArch) -> Option<TableArch> {
        match arch {
            LoweringArch::Native => None,
            LoweringArch::Kepler => Some(TableArch::Sm35),
            LoweringArch::Maxwell => Some(TableArch::Sm53),
            LoweringArch::Hopper => Some(TableArch::Sm90),
        }
    }

    const fn index(self) -> usize {
        match self {
            TableArch::Sm35 => 0,
            TableArch::Sm53 => 1,
            TableArch::Sm90 => 2,
        }
    }
}

type Table = BTreeMap<(String, String), (u16, u16)>;

/// One architecture's rows as looked up at run time: keys borrowed from the
/// embedded text, hashed, so startup does no per-row allocation.
type Lookup = HashMap<&'static str, (u16, u16)>;

/// The committed rows of `arch`. Built per arch on first use: a run parses
/// only the rows it can look up.
fn table(arch: TableArch) -> &'static Lookup {
    static T: [OnceLock<Lookup>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let name = arch.name();
    T[arch.index()].get_or_init(|| {
        // Lines average ~55 bytes: room for an arch's share of the rows, so building never rehashes.
        let mut m = Lookup::with_capacity(TABLE_TSV.len() / 40 / TableArch::ALL.len());
        m.extend(
            TABLE_TSV
                .lines()
                // Cheap prefix test first: most lines belong to other archs.
                .filter(|l| l.strip_prefix(name).is_some_and(|r| r.starts_with('\t')))
                .filter_map(row)
                .map(|(_, k, n, d)| (k, (n, d))),
        );
        m
    })
}

/// The well-formed rows of the TSV (`arch key uops steps ...`, `#`
/// comments), in order.
fn rows(text: &str) -> impl Iterator<Item = (&str, &str, u16, u16)> {
    text.lines().filter_map(row)
}

/// One line of the TSV, if it is a well-formed row.
fn row(line: &str) -> Option<(&str, &str, u16, u16)> {
    if line.starts_with('#') || line.trim().is_empty() {
        return None;
    }
    let mut f = line.split('\t');
    let (arch, key, n, d) = (f.next()?, f.next()?, f.next()?, f.next()?);
    let (Ok(n), Ok(d)) = (n.parse::<u16>(), d.parse::<u16>()) else {
        return None;
    };
    if n == 0 || d == 0 || d > n {
        return None;
    }
    Some((arch, key, n, d))
}

/// Parses the TSV (`arch key uops steps ...`, `#` comments). Malformed rows are
/// skipped; the table is committed data checked by a test.
pub fn parse_table(text: &str) -> Table {
    rows(text)
        .map(|(a, k, n, d)| ((a.to_string(), k.to_string()), (n, d)))
        .collect()
}

/// Number of rows for `arch`.
pub fn rows_for(arch: TableArch) -> usize {
    table(arch).len()
}

/// Whether `arch`'s table has a row for `key`.
pub fn has_row(arch: TableArch, key: &str) -> bool {
    table(arch).contains_key(key)
}

/// The cost of `inst` under `arch`'s table.
pub fn cost(arch: LoweringArch, inst: &Instruction) -> Cost {
    let Some(a) = TableArch::of(arch) else {
        return Cost::NATIVE;
    };
    let k = key(inst);
    match table(a).get(k.as_str()) {
        Some(&(uops, steps)) => Cost {
            uops,
            steps,
            from_table: true,
            missing: false,
        },
        None => Cost {
            missing: true,
            ..Cost::NATIVE
        },
    }
}

/// The variant key of `inst` ([`sim_isa::db::lowering_key`]).
pub fn key(inst: &Instruction) -> String {
    sim_isa::db::lowering_key(inst)
}

/// `inst`'s PTX sources `a`..`d` as the machine-code table names them
/// (`c` is also the BoolOp/selp predicate, `d` bfi's length): the register
/// each reads, `None` for an immediate, a special register or no operand. A
/// front end that reads machine code from the compiler names what a machine
/// instruction reads with it ([`crate::sass_table::Src`]).
pub fn source_registers(inst: &Instruction) -> [Option<sim_isa::RegId>; 4] {
    crate::facts::sources(inst).map(|s| match s {
        crate::facts::SrcOperand::Reg(r) => Some(r),
        crate::facts::SrcOperand::Absent | crate::facts::SrcOperand::Fixed => None,
    })
}
