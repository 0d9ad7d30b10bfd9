//! Target names and PTX ISA versions: only real ones are accepted.

use sim_isa::{PtxVersion, Target};

#[test]
fn only_real_targets_and_versions() {
    for name in Target::KNOWN {
        let t = Target::parse(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.to_string(), *name);
    }
    for name in [
        "sm_999", "sm_45", "sm_53a", "sm_010", "sm_9", "sm_90f", "sm_101", "gfx90a", "sm_",
    ] {
        let e = Target::parse(name).unwrap_err().to_string();
        assert!(e.contains(&format!("'{name}'")), "{e}");
        // The message lists the known targets.
        assert!(
            e.contains("sm_10 sm_11") && e.contains("sm_90a") && e.contains("sm_121f"),
            "{e}"
        );
    }
    for (v, known) in [
        ("1.0", true),
        ("1.5", false),
        ("4.3", true),
        ("5.0", true),
        ("5.1", false),
        ("6.5", true),
        ("7.8", true),
        ("8.8", true),
        ("9.0", true),
        ("9.1", false),
        ("99.99", false),
    ] {
        assert_eq!(PtxVersion::parse_known(v).is_some(), known, "{v}");
        assert_eq!(PtxVersion::parse(v).unwrap().is_known(), known, "{v}");
    }
}
