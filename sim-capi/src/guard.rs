//! One call at a time on a C handle: the flag and the state it guards,
//! shared by `PssSim` and `PssDevice`.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// A handle's state and the flag that lets one call at a time reach it.
pub(crate) struct Guarded<T> {
    /// Set while a call holds the state ([`Guarded::enter`]).
    busy: AtomicBool,
    /// Reached only through [`Held`], which `busy` makes the only one.
    state: UnsafeCell<T>,
}

/// Exclusive use of a handle's state for one call; clears the flag when
/// the call ends (a panic caught at the boundary included).
pub(crate) struct Held<'a, T>(&'a Guarded<T>);

impl<T> Guarded<T> {
    pub(crate) fn new(state: T) -> Self {
        Guarded {
            busy: AtomicBool::new(false),
            state: UnsafeCell::new(state),
        }
    }

    /// The state for one call, or the error `in_use` when a call is in
    /// progress: the flag, not the caller's care, keeps two `&mut` from
    /// existing at once. (The error is `handle::Res`'s message, written out:
    /// this file sits below `handle`.)
    pub(crate) fn enter(&self, in_use: &str) -> Result<Held<'_, T>, String> {
        if self.busy.swap(true, Ordering::Acquire) {
            return Err(in_use.into());
        }
        Ok(Held(self))
    }
}

impl<T> Drop for Held<'_, T> {
    fn drop(&mut self) {
        self.0.busy.store(false, Ordering::Release);
    }
}

impl<T> std::ops::Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `busy` was clear and is now set by this guard alone, so
        // no other reference to the state exists until it is dropped.
        unsafe { &*self.0.state.get() }
    }
}

impl<T> std::ops::DerefMut for Held<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as for `deref`; `&mut self` makes this the only borrow
        // through the guard.
        unsafe { &mut *self.0.state.get() }
    }
}
