//! Variable declarations, at module scope and in bodies:
//! `.align N .type name[dims] = init;`.

use crate::cursor::{Parser, Res};
use crate::error::{ModuleErrorKind as K, Pos};
use crate::types::*;

/// Largest variable or parameter accepted, in bytes.
pub const MAX_VARIABLE_BYTES: u64 = 1 << 32;

impl Parser<'_> {
    /// `size` bytes within [`MAX_VARIABLE_BYTES`], or the limit error at
    /// `pos` naming `what` (a variable's or a parameter's size).
    pub(crate) fn check_bytes(&self, pos: Pos, what: &'static str, size: u64) -> Res<()> {
        if size > MAX_VARIABLE_BYTES {
            return Err(self.err_at(
                pos,
                K::Limit {
                    what,
                    count: size,
                    max: MAX_VARIABLE_BYTES,
                },
            ));
        }
        Ok(())
    }

    /// After the state space: `.align N .type name[dims] = init;`, a
    /// `.global` maybe `.attribute(.managed)` first (CUDA's `__managed__`:
    /// an ordinary global here; the CUDA runtime keeps the host's copy).
    pub fn variable(&mut self, space: StateSpace, linkage: Linkage) -> Res<Variable> {
        if self.eat_dot("attribute") {
            self.expect_punct(b'(', "'('")?;
            if !self.eat_dot("managed") {
                return Err(self.expected("'.managed' (the one variable attribute supported)"));
            }
            self.expect_punct(b')', "')'")?;
        }
        let mut align = self.align()?;
        if self.is_dot("v2") || self.is_dot("v4") || self.is_dot("v8") {
            return Err(self.err(K::NotSupported("vector variables".into())));
        }
        let ty = self.ptx_type()?;
        if align.is_none() {
            align = self.align()?;
        }
        let (name, pos) = self.ident("a variable name")?;
        let dims = self.dims()?;
        let init = if self.eat_punct(b'=') {
            Some(crate::init::initialiser(self, ty)?)
        } else {
            None
        };
        self.expect_punct(b';', "';'")?;
        let mut elems: u64 = 1;
        for (k, d) in dims.iter().enumerate() {
            let n = match (d, k, &init) {
                (Some(n), _, _) => *n,
                (None, 0, Some(vals)) => {
                    let inner: u64 = dims[1..].iter().map(|d| d.unwrap_or(1)).product();
                    (vals.len() as u64).div_ceil(inner.max(1))
                }
                (None, _, _) => 0,
            };
            elems = elems.saturating_mul(n);
        }
        let size = elems.saturating_mul(ty.size());
        self.check_bytes(pos, "variable size in bytes", size)?;
        if let Some(vals) = &init {
            if vals.len() as u64 > elems {
                return Err(self.err_at(
                    pos,
                    K::NotSupported("more initialisers than elements".into()),
                ));
            }
        }
        Ok(Variable {
            name,
            space,
            ty,
            align,
            dims,
            size,
            external: linkage == Linkage::Extern,
            visible: linkage == Linkage::Visible,
            init,
            pos,
        })
    }

    /// `[N][M]` / `[]` after a name.
    fn dims(&mut self) -> Res<Vec<Option<u64>>> {
        let mut dims = Vec::new();
        while self.eat_punct(b'[') {
            if dims.len() >= 8 {
                return Err(self.err(K::NotSupported("more than 8 array dimensions".into())));
            }
            if self.eat_punct(b']') {
                dims.push(None);
                continue;
            }
            let at = self.peek();
            let n = self.number("an array length")?;
            if n > MAX_VARIABLE_BYTES {
                let s = at.map_or("", |t| self.text(t)).to_string();
                return Err(
                    self.err_at(at.map_or(Pos::default(), |t| self.pos(t)), K::BadNumber(s))
                );
            }
            dims.push(Some(n));
            self.expect_punct(b']', "']'")?;
        }
        Ok(dims)
    }
}
