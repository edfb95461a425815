//! Cooperative cancellation of a computation: a caller that gives up on a call (a server
//! whose time limit passed, a client that went away) sets the call's [`CancelToken`], and
//! the engine's long loops, at each [`checkpoint`], stop with [`MetaError::Cancelled`].
//!
//! The engine computes synchronously, and a thread cannot be stopped from outside: a call
//! the server answered `timed_out` would otherwise keep its thread (and its turn to run)
//! until the engine returned, however long that took. The token is installed for the
//! calling thread by [`with_token`], so no function's signature carries it.
//!
//! A checkpoint is a thread-local read and an atomic load (no token installed: one read).
//! On wasm nothing installs a token (the page's worker is stopped whole), so a checkpoint
//! never fires there; it compiles to nothing.

use crate::MetaError;
#[cfg(not(target_arch = "wasm32"))]
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Set once, by whoever gave up on the call; read by the call's thread at each checkpoint.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        CancelToken::default()
    }

    /// Asks the computation running under this token to stop at its next checkpoint.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    static CURRENT: RefCell<Option<CancelToken>> = const { RefCell::new(None) };
}

/// Runs `work` on this thread with `token` as its cancellation token: every checkpoint
/// reached meanwhile returns [`MetaError::Cancelled`] once the token is set. The thread's
/// previous token (if any) is restored afterwards, also if `work` panics.
pub fn with_token<T>(token: &CancelToken, work: impl FnOnce() -> T) -> T {
    #[cfg(not(target_arch = "wasm32"))]
    {
        struct Restore(Option<CancelToken>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT.with(|current| *current.borrow_mut() = previous);
            }
        }
        let previous = CURRENT.with(|current| current.borrow_mut().replace(token.clone()));
        let _restore = Restore(previous);
        work()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = token;
        work()
    }
}

/// Whether this thread's call has been given up.
#[inline]
pub fn cancelled() -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    {
        CURRENT.with(|current| {
            current
                .borrow()
                .as_ref()
                .is_some_and(CancelToken::is_cancelled)
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        false
    }
}

/// `Err(MetaError::Cancelled)` once this thread's call has been given up; placed in every
/// loop whose work grows with the input (iterations, refits, rows, design columns).
#[inline]
pub fn checkpoint() -> Result<(), MetaError> {
    if cancelled() {
        Err(MetaError::Cancelled)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_fires_only_under_a_set_token_and_the_token_is_restored() {
        assert_eq!(checkpoint(), Ok(()), "no token: never fires");
        let token = CancelToken::new();
        with_token(&token, || {
            assert_eq!(checkpoint(), Ok(()));
            token.cancel();
            assert_eq!(checkpoint(), Err(MetaError::Cancelled));
            // A nested call under its own token sees its own.
            with_token(&CancelToken::new(), || assert_eq!(checkpoint(), Ok(())));
            assert_eq!(checkpoint(), Err(MetaError::Cancelled));
        });
        assert_eq!(checkpoint(), Ok(()), "the token ends with its call");
    }

    /// Issue 41 item 1: each long-running analysis stops at a checkpoint once its call is
    /// given up (its token set), rather than running to its end.
    #[test]
    fn long_analyses_stop_once_their_call_is_given_up() {
        use crate::{Estimator, FitOptions, Method, Record};
        let records: Vec<Record> = (0..40)
            .map(|i| {
                let yi = 0.3 + f64::from(i % 7) / 10.0;
                Record::new(format!("r{i}"), yi, 0.01 + f64::from(i % 5) / 100.0)
            })
            .collect();
        let reml = FitOptions::default();
        let groups: Vec<String> = (0..40).map(|i| format!("g{}", i % 4)).collect();
        let token = CancelToken::new();
        token.cancel();
        with_token(&token, || {
            let stopped = [
                crate::fit(&records, &reml).err(),
                crate::influence_diagnostics(&records, Method::Reml).err(),
                crate::leave_one_out(&records, &reml).err(),
                crate::cumulative(&records, &reml).err(),
                crate::selection_model(&records, &[0.025], &reml).err(),
                crate::subgroup_analysis(&records, "g", &groups, &reml).err(),
                crate::trim_and_fill(&records, Estimator::L0, None, Method::Reml).err(),
            ];
            for (n, error) in stopped.into_iter().enumerate() {
                let error = error.unwrap_or_else(|| panic!("analysis {n} ran to its end"));
                // A step's error may carry the cancellation in its own words.
                assert!(
                    error == MetaError::Cancelled
                        || error.to_string().contains("was stopped before it finished"),
                    "analysis {n}: {error}"
                );
            }
        });
        // The same calls run to their end under no token.
        assert!(crate::influence_diagnostics(&records, Method::Reml).is_ok());
    }
}
