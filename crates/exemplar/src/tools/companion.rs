//! Companion plots: the plot drawn beside a tool's result ([`Companion`], a tool's entry
//! names its own), and the plot and arguments for one call.

use super::{find, DataStore, Tool, DATASET, DATA_ID};
use serde_json::Value;

/// The plot drawn beside a tool's result, and when and with which arguments it is drawn.
///
/// Most companions take the tool's own arguments ([`Companion::same_arguments`]); one whose
/// arguments differ says when it applies to a call and how the call's arguments become its
/// own ([`Companion::mapped`]).
#[derive(Clone, Copy)]
pub struct Companion {
    /// The plot's name: a companion does not hold the plot's [`Tool`], so that a registry
    /// without the plot (the page's first wasm module) need not link it.
    pub plot: &'static str,
    applies: fn(&Value) -> bool,
    arguments: fn(&Value) -> Value,
}

impl Companion {
    /// Drawn after every successful call, with the call's arguments.
    pub const fn same_arguments(plot: &'static Tool) -> Self {
        Companion {
            plot: plot.name,
            applies: |_| true,
            arguments: Value::clone,
        }
    }

    /// Drawn after a successful call for which `applies` holds, with `arguments` of the
    /// call's arguments.
    pub const fn mapped(
        plot: &'static Tool,
        applies: fn(&Value) -> bool,
        arguments: fn(&Value) -> Value,
    ) -> Self {
        Companion {
            plot: plot.name,
            applies,
            arguments,
        }
    }
}

/// The plot drawn beside a successful call of `name` with `args`, if any.
pub fn companion_plot(name: &str, args: &Value) -> Option<&'static str> {
    companion_plot_in(name, args, &DataStore::new())
}

/// [`companion_plot`] for a call that may name a handle of `store`.
pub fn companion_plot_in(name: &str, args: &Value, store: &DataStore) -> Option<&'static str> {
    let stand_in = store.stand_in(args);
    let args = stand_in.as_ref().unwrap_or(args);
    let companion = find(name)?.companion?;
    (companion.applies)(args).then_some(companion.plot)
}

/// The plot drawn beside a call of `name` with `args`, and the arguments it is called with.
pub fn companion_call(name: &str, args: &Value) -> Option<(&'static str, Value)> {
    companion_call_in(name, args, &DataStore::new())
}

/// [`companion_call`] for a call that may name a handle of `store` (its rule reads a
/// stand-in of the records; the plot's arguments keep the handle).
pub fn companion_call_in(
    name: &str,
    args: &Value,
    store: &DataStore,
) -> Option<(&'static str, Value)> {
    let companion = find(name)?.companion?;
    let stand_in = store.stand_in(args);
    let rule_args = stand_in.as_ref().unwrap_or(args);
    if !(companion.applies)(rule_args) {
        return None;
    }
    let mut plot_args = (companion.arguments)(args);
    // `r_code` asks the analysis for its R code, not the plot (which writes none).
    if let Some(out) = plot_args.as_object_mut() {
        out.remove("r_code");
    }
    for key in [DATA_ID, DATASET] {
        if let (Some(value), Some(out)) = (args.get(key), plot_args.as_object_mut()) {
            out.insert(key.into(), value.clone());
        }
    }
    Some((companion.plot, plot_args))
}
