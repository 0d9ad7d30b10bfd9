//! sim-core: cycle-approximate SM model (skeleton; lands with issue 3).
