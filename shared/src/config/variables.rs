//! The environment variables the server reads. Each is declared once, in the module of its
//! concern (`listener`, `kobana`, `stores`, `front`, `answers`, `token_front`, `logs`,
//! `work`): its name, its default, how its value is read (with its bounds) and its text.
//! [`VARIABLES`] puts them in the README's order; from it
//! [`Config::from_lookup`](super::Config::from_lookup) reads the configuration, [`usage`]
//! writes the binary's usage text and [`readme_table`] the README's configuration table.

use std::borrow::Cow;

use super::{Config, answers, front, kobana, listener, logs, stores, token_front, work};

/// Why a value was refused, in words that follow the variable's name.
pub type Reason = Cow<'static, str>;

/// Reads a set value (trimmed) into the configuration.
pub type Reader = fn(&mut Config, &str) -> Result<(), Reason>;

/// Changes the configuration for a variable left unset under Lambda.
pub type LambdaDefault = fn(&mut Config) -> Result<(), Reason>;

/// Set by AWS Lambda's runtime, never by the operator: its presence says the process runs
/// under Lambda (and changes a few defaults, see [`Variable::unset_under_lambda`]).
pub const LAMBDA_RUNTIME_API: &str = "AWS_LAMBDA_RUNTIME_API";

/// The log filter's variable, read by the log set-up before the configuration is.
pub const RUST_LOG: &str = logs::LOG_FILTER.name;

/// One variable, declared once.
#[derive(Debug, Clone, Copy)]
pub struct Variable {
    /// The name.
    pub name: &'static str,
    /// The value in force when it is unset, as the README writes it (code in backticks; the
    /// usage text drops them).
    pub default: &'static str,
    /// What it sets, in one sentence (code in backticks): the usage text's line and the
    /// README's first words, with the accepted numbers of a [`Read::Whole`] added.
    pub meaning: &'static str,
    /// What the README adds after the meaning (Markdown: limits, links, caveats); may be empty.
    pub more: &'static str,
    /// How its value is read.
    pub read: Read,
    /// What being unset means under Lambda (`AWS_LAMBDA_RUNTIME_API` set), where that differs:
    /// applied once every variable that is set has been read; an error stops the server.
    pub unset_under_lambda: Option<LambdaDefault>,
}

/// How a variable's value is read.
#[derive(Debug, Clone, Copy)]
pub enum Read {
    /// The configuration reads the value, trimmed, when it is set and not blank.
    Text(Reader),
    /// The configuration reads the value, trimmed, whenever it is set: blank is a value too.
    TextOrBlank(Reader),
    /// The configuration reads a whole number of `unit` from `min` to `max` (`u64::MAX`: no
    /// upper bound), when set and not blank.
    Whole {
        /// What is counted.
        unit: Unit,
        /// The least value accepted.
        min: u64,
        /// The most value accepted.
        max: u64,
        /// Puts the number in the configuration.
        set: fn(&mut Config, u64),
    },
    /// The log set-up reads it (`telemetry::logging`), before the configuration.
    Logging,
}

/// What a [`Read::Whole`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Bytes (shown in KiB, MiB or GiB when exact).
    Bytes,
    /// Milliseconds.
    Milliseconds,
    /// Kobana calls.
    Calls,
    /// Days.
    Days,
}

impl Unit {
    /// The unit's name, plural.
    fn name(self) -> &'static str {
        match self {
            Self::Bytes => "bytes",
            Self::Milliseconds => "milliseconds",
            Self::Calls => "calls",
            Self::Days => "days",
        }
    }

    /// `n` of this unit, as a person reads it: `1 KiB`, `256 B`, `1000`.
    fn amount(self, n: u64) -> String {
        if self != Self::Bytes {
            return n.to_string();
        }
        let exact = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
            .into_iter()
            .find(|(size, _)| n >= *size && n.is_multiple_of(*size));
        match exact {
            Some((size, name)) => format!("{} {name}", n / size),
            None => format!("{n} B"),
        }
    }
}

impl Variable {
    /// A variable read by the configuration, with nothing more for the README and nothing
    /// special under Lambda.
    pub const fn new(
        name: &'static str,
        default: &'static str,
        meaning: &'static str,
        read: Read,
    ) -> Self {
        Self {
            name,
            default,
            meaning,
            more: "",
            read,
            unset_under_lambda: None,
        }
    }

    /// The same, with what the README adds after the meaning.
    pub const fn more(mut self, more: &'static str) -> Self {
        self.more = more;
        self
    }

    /// The same, with what being unset means under Lambda.
    pub const fn unset_under_lambda(
        mut self,
        apply: fn(&mut Config) -> Result<(), Reason>,
    ) -> Self {
        self.unset_under_lambda = Some(apply);
        self
    }

    /// Whether [`Config::from_lookup`](super::Config::from_lookup) reads it.
    pub fn read_by_config(&self) -> bool {
        !matches!(self.read, Read::Logging)
    }

    /// Whether `raw` (the variable as found in the environment) counts as set.
    pub(super) fn is_set(&self, raw: &str) -> bool {
        matches!(self.read, Read::TextOrBlank(_)) || !raw.trim().is_empty()
    }

    /// Reads the set value `raw` into `config`.
    pub(super) fn apply(&self, config: &mut Config, raw: &str) -> Result<(), Reason> {
        let value = raw.trim();
        match self.read {
            Read::Text(read) | Read::TextOrBlank(read) => read(config, value),
            Read::Whole {
                unit,
                min,
                max,
                set,
            } => {
                let n = value
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (min..=max).contains(n))
                    .ok_or_else(|| whole_number_refusal(unit, min, max))?;
                set(config, n);
                Ok(())
            }
            Read::Logging => Ok(()),
        }
    }

    /// The accepted numbers, when they say something: `(1–1000 calls)`, `(at least 2 KiB)`.
    fn span(&self) -> Option<String> {
        let Read::Whole { unit, min, max, .. } = self.read else {
            return None;
        };
        if max == u64::MAX {
            return (min > 1).then(|| format!("(at least {})", unit.amount(min)));
        }
        Some(match unit {
            Unit::Bytes => format!("({}–{})", unit.amount(min), unit.amount(max)),
            _ => format!("({min}–{max} {})", unit.name()),
        })
    }

    /// The meaning with the accepted numbers before its final full stop.
    pub fn summary(&self) -> String {
        match self.span() {
            None => self.meaning.to_owned(),
            Some(span) => {
                let sentence = self.meaning.strip_suffix('.').unwrap_or(self.meaning);
                format!("{sentence} {span}.")
            }
        }
    }
}

/// The refusal of a number outside `min..=max`.
fn whole_number_refusal(unit: Unit, min: u64, max: u64) -> Reason {
    let unit = unit.name();
    match (min, max) {
        (0, u64::MAX) => format!("must be a whole number of {unit}"),
        (_, u64::MAX) => format!("must be a whole number of {unit}, at least {min}"),
        _ => format!("must be a whole number of {unit} from {min} to {max}"),
    }
    .into()
}

/// Every variable, in the README's order. All optional.
pub const VARIABLES: &[Variable] = &[
    listener::BIND,
    kobana::API_URL,
    stores::CONFIRMATIONS_TABLE,
    stores::AUDIT_TABLE,
    stores::AUDIT_RETENTION_DAYS,
    front::ALLOWED_HOSTS,
    front::ALLOWED_ORIGINS,
    front::PUBLIC_URL,
    front::AUTHORIZATION_SERVERS,
    listener::HEADER_READ_TIMEOUT,
    listener::IDLE_TIMEOUT,
    kobana::TIMEOUT,
    listener::MAX_BODY_BYTES,
    kobana::USER_AGENT_CONTACT,
    answers::BUDGET_BYTES,
    answers::LIST_ROWS,
    token_front::TOKEN_FRONT,
    token_front::KEY_SECRET,
    logs::METRICS,
    work::CALLS,
    work::IN_FLIGHT,
    work::JSON_BYTES,
    work::ERROR_BYTES,
    work::DOCUMENT_BYTES,
    logs::LOG_FILTER,
];

/// The environment part of the binary's usage text: each variable with its meaning and its
/// default, one line each.
pub fn usage() -> String {
    let width = VARIABLES.iter().map(|v| v.name.len()).max().unwrap_or(0);
    let mut text = String::from("environment (all optional; defaults in brackets):\n");
    for variable in VARIABLES {
        text.push_str(&format!(
            "  {:width$}  {} [{}]\n",
            variable.name,
            variable.summary().replace('`', ""),
            variable.default.replace('`', "")
        ));
    }
    text
}

/// The README's configuration table (Markdown): each variable with its default and its
/// meaning, followed by what the README adds.
pub fn readme_table() -> String {
    let mut table = String::from("| Variable | Default | Meaning |\n|---|---|---|\n");
    for variable in VARIABLES {
        let meaning = match variable.more {
            "" => variable.summary(),
            more => format!("{} {more}", variable.summary()),
        };
        table.push_str(&format!(
            "| `{}` | {} | {meaning} |\n",
            variable.name, variable.default
        ));
    }
    table
}

#[cfg(test)]
mod tests;
