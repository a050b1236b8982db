//! Customers' names in list rows, on the first call, without the fan-out (BW-2, FH-2).
//!
//! Invoices and subscriptions only know their billing account; the name is the account's
//! embedded customer (`BillingAccountV1.customer`), which Kobana's document says is present
//! *when the relation is loaded* — and Kobana has no read of several accounts by id. Looking
//! each account up made a page of 100 rows cost 101 calls. The choice:
//!
//! - **One names call per list answer, at most**, after the list, only when the page has an
//!   account the instance does not know yet, sent once (never retried), best effort:
//!   - two or more unknown accounts: `GET /v1/billing_accounts?per_page=100`, one page of
//!     the organization's accounts, every embedded name learned at once (the accounts not
//!     on the page too). Where Kobana's lists load the relation this names every row of a
//!     first list, cold cache or warm, on any instance, in 2 calls;
//!   - one unknown account, or an instance that has seen Kobana's account lists come without
//!     the customer ([`NameCache::lists_name`]), or accounts the page of accounts did not
//!     hold (an organization of more than 100): `GET /v1/billing_accounts/{id}` of the one
//!     with the most rows on the page (the first on ties), so later lists converge.
//! - **A per-instance cache** of account → name, keyed by organization, each entry kept
//!   [`NAME_TTL`]. It also learns from every billing account the server reads anyway: a
//!   `billing_accounts_get`, the rows of `billing_accounts_list`, a customer's accounts read
//!   by `billing_customers_get` (that customer's name), the payer read of a confirmation
//!   question.
//! - **A row always carries `billing_account_id`**, and `customer` only when the name is
//!   known; a row without one says why in `customer_unavailable` ([`Missing`]): the token may
//!   not read accounts, Kobana sent the account without its customer, the account was not
//!   read in this call, or the read failed. Never a wrong name.
//!
//! A list answer so costs at most 2 calls and 2 sequential rounds whatever the page holds.
//! The benchmark reports the cold names round beside the warm case, never mixed into it
//! (`bench/harness/src/fanout.rs`, docs/reliability.md §8).
//!
//! The cache can only answer for account ids that appear in records Kobana has just returned
//! to this token, under a token that may read billing accounts: even a mistaken organization
//! key could not show a name the caller could not read itself. Entries are bounded
//! ([`MAX_NAMED_ACCOUNTS`], names cut to [`MAX_NAME_CHARS`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long a learned name (or a learned absence of one) is used.
pub const NAME_TTL: Duration = Duration::from_secs(300);
/// Most accounts remembered by one instance, every organization together.
pub const MAX_NAMED_ACCOUNTS: usize = 10_000;
/// Longest name kept, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// What one instance knows of its accounts' customers' names.
#[derive(Debug, Default)]
pub struct NameCache {
    entries: Mutex<HashMap<(String, String), Entry>>,
    /// What Kobana's account lists showed: 0 before any list with accounts, else
    /// [`LISTS_NAME`] or [`LISTS_UNNAMED`].
    lists: AtomicU8,
}

/// An account list came with its customers embedded.
const LISTS_NAME: u8 = 1;
/// An account list came with accounts and no customer.
const LISTS_UNNAMED: u8 = 2;

#[derive(Debug, Clone)]
struct Entry {
    state: State,
    learned: Instant,
}

#[derive(Debug, Clone)]
enum State {
    /// Its customer's name.
    Named(String),
    /// Read itself, and no customer came with it.
    Unnamed,
    /// Not on the page of accounts a names round read (an organization of more than a page).
    Unlisted,
}

/// What the cache says of one account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Known {
    /// Its customer's name.
    Named(String),
    /// Read, and no name came with it: do not ask again until the entry expires.
    Unnamed,
    /// Not on the page of accounts a names round read: only a read of its own names it.
    Unlisted,
    /// Never read, or read too long ago.
    Unknown,
}

/// Why a list row names no customer: its `customer_unavailable`, in pt-BR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// The token may not read billing accounts.
    NoPermission,
    /// Kobana sent the account without its customer (the relation not loaded).
    NotSent,
    /// The account was not read in this call (one names call per list).
    NotRead,
    /// The names call failed.
    ReadFailed,
}

impl Missing {
    /// The row's words.
    pub fn text(self) -> &'static str {
        match self {
            Missing::NoPermission => "sem permissão billing_accounts:read para ler o nome",
            Missing::NotSent => "o Kobana não enviou o cliente desta conta",
            Missing::NotRead => "conta ainda não lida; billing_accounts_get traz o nome",
            Missing::ReadFailed => "a leitura da conta falhou; tente de novo",
        }
    }
}

/// The one names call of a list answer ([`plan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamesCall<'a> {
    /// Nothing to read: every account on the page is known.
    None,
    /// `GET /v1/billing_accounts?per_page=100`: one page of the organization's accounts.
    List,
    /// `GET /v1/billing_accounts/{id}`.
    One(&'a str),
}

/// The customer's name embedded in a billing account record, when there is one.
pub fn embedded_name(account: &Value) -> Option<&str> {
    account
        .pointer("/customer/name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
}

impl NameCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut HashMap<(String, String), Entry>) -> T) -> T {
        f(&mut self.entries.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// What is known, at `now`, of `account` in `org`.
    pub fn lookup(&self, org: &str, account: &str, now: Instant) -> Known {
        let key = (org.to_owned(), account.to_owned());
        self.with(|entries| match entries.get(&key) {
            Some(entry) if now.saturating_duration_since(entry.learned) < NAME_TTL => {
                match &entry.state {
                    State::Named(name) => Known::Named(name.clone()),
                    State::Unnamed => Known::Unnamed,
                    State::Unlisted => Known::Unlisted,
                }
            }
            _ => Known::Unknown,
        })
    }

    /// Whether Kobana's account lists name their customers, as far as this instance has
    /// seen: `None` before any list with accounts.
    pub fn lists_name(&self) -> Option<bool> {
        match self.lists.load(Ordering::Relaxed) {
            LISTS_NAME => Some(true),
            LISTS_UNNAMED => Some(false),
            _ => None,
        }
    }

    fn insert(&self, org: &str, account: &str, state: State, now: Instant) {
        self.with(|entries| {
            if entries.len() >= MAX_NAMED_ACCOUNTS {
                entries.retain(|_, e| now.saturating_duration_since(e.learned) < NAME_TTL);
                if entries.len() >= MAX_NAMED_ACCOUNTS {
                    entries.clear();
                }
            }
            entries.insert(
                (org.to_owned(), account.to_owned()),
                Entry {
                    state,
                    learned: now,
                },
            );
        });
    }

    /// Remembers `account`'s name (or, after a read of the account itself, that it came
    /// without one) at `now`; answers the name as kept (cut to [`MAX_NAME_CHARS`]).
    pub fn remember(
        &self,
        org: &str,
        account: &str,
        name: Option<&str>,
        now: Instant,
    ) -> Option<String> {
        let name = name.map(|n| n.chars().take(MAX_NAME_CHARS).collect::<String>());
        let state = name.clone().map_or(State::Unnamed, State::Named);
        self.insert(org, account, state, now);
        name
    }

    /// Learns from billing account records of a list: the names they embed, and whether
    /// Kobana's lists embed them at all. A record without one says nothing of its account
    /// (a read of its own may still name it).
    pub fn learn_listed(&self, org: &str, accounts: &[Value], now: Instant) {
        let mut named = false;
        for account in accounts {
            if let (Some(id), Some(name)) = (
                account.get("id").and_then(Value::as_str),
                embedded_name(account),
            ) {
                self.remember(org, id, Some(name), now);
                named = true;
            }
        }
        if !accounts.is_empty() {
            let seen = if named { LISTS_NAME } else { LISTS_UNNAMED };
            self.lists.store(seen, Ordering::Relaxed);
        }
    }

    /// After a names round read a page of accounts that named its customers: `unknown`
    /// accounts it did not hold are remembered as [`Known::Unlisted`] (read one by one
    /// from then on, not by another page).
    pub fn learn_unlisted(&self, org: &str, unknown: &[(&str, usize)], now: Instant) {
        if self.lists_name() != Some(true) {
            return;
        }
        for (id, _) in unknown {
            if self.lookup(org, id, now) == Known::Unknown {
                self.insert(org, id, State::Unlisted, now);
            }
        }
    }

    /// Learns from a read of the billing account `id` itself: its name, or that it came
    /// without one (the relation not loaded). Answers the name as kept.
    pub fn learn_read(&self, org: &str, id: &str, account: &Value, now: Instant) -> Option<String> {
        self.remember(org, id, embedded_name(account), now)
    }
}

/// The distinct billing accounts `records` point to, in order of first appearance, with how
/// many records point to each.
pub fn accounts_of(records: &[Value]) -> Vec<(&str, usize)> {
    let mut out: Vec<(&str, usize)> = Vec::new();
    for id in records
        .iter()
        .filter_map(|r| r.get("billing_account_id").and_then(Value::as_str))
    {
        match out.iter_mut().find(|(seen, _)| *seen == id) {
            Some((_, count)) => *count += 1,
            None => out.push((id, 1)),
        }
    }
    out
}

/// The account to read in a list's names round: among `unknown` (in order of appearance,
/// with their row counts), the one with the most rows, the first on ties.
pub fn next_to_read<'a>(unknown: &[(&'a str, usize)]) -> Option<&'a str> {
    let most = unknown.iter().map(|(_, n)| *n).max()?;
    unknown.iter().find(|(_, n)| *n == most).map(|(id, _)| *id)
}

/// What the cache knows of a page's accounts ([`lookup_page`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PageNames<'a> {
    /// The known names, by account.
    pub names: HashMap<String, String>,
    /// Accounts read without a customer.
    pub unnamed: Vec<&'a str>,
    /// Accounts never read (or read too long ago), in order, with their row counts.
    pub unknown: Vec<(&'a str, usize)>,
    /// Accounts a page of accounts did not hold, in order, with their row counts.
    pub unlisted: Vec<(&'a str, usize)>,
}

/// Names from the cache for `accounts` (with their row counts) of `org`.
pub fn lookup_page<'a>(
    cache: &NameCache,
    org: &str,
    accounts: &[(&'a str, usize)],
    now: Instant,
) -> PageNames<'a> {
    let mut page = PageNames::default();
    for (id, rows) in accounts {
        match cache.lookup(org, id, now) {
            Known::Named(name) => {
                page.names.insert((*id).to_owned(), name);
            }
            Known::Unnamed => page.unnamed.push(id),
            Known::Unlisted => page.unlisted.push((*id, *rows)),
            Known::Unknown => page.unknown.push((*id, *rows)),
        }
    }
    page
}

/// The one names call for a page the cache left `page`: a page of accounts when two or
/// more were never read and Kobana's lists are not known to come without customers; else a
/// read of the account with the most rows among those not named yet.
pub fn plan<'a>(cache: &NameCache, page: &PageNames<'a>) -> NamesCall<'a> {
    if page.unknown.len() >= 2 && cache.lists_name() != Some(false) {
        return NamesCall::List;
    }
    let unread: Vec<(&str, usize)> = page.unknown.iter().chain(&page.unlisted).copied().collect();
    next_to_read(&unread).map_or(NamesCall::None, NamesCall::One)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn n6_names_are_kept_per_organization_for_the_ttl_and_an_absence_is_remembered() {
        let cache = NameCache::new();
        let t0 = Instant::now();
        cache.remember("org-a", "acc-1", Some("Padaria Pão Dourado Ltda"), t0);
        cache.learn_read(
            "org-a",
            "acc-2",
            &json!({"id": "acc-2", "customer": null}),
            t0,
        );
        assert_eq!(
            cache.lookup("org-a", "acc-1", t0),
            Known::Named("Padaria Pão Dourado Ltda".into())
        );
        assert_eq!(cache.lookup("org-a", "acc-2", t0), Known::Unnamed);
        assert_eq!(cache.lookup("org-b", "acc-1", t0), Known::Unknown);
        let later = t0 + NAME_TTL;
        assert_eq!(cache.lookup("org-a", "acc-1", later), Known::Unknown);
        // A list that does not embed the customer teaches nothing of its account.
        cache.learn_listed("org-a", &[json!({"id": "acc-3"})], t0);
        assert_eq!(cache.lookup("org-a", "acc-3", t0), Known::Unknown);
        cache.learn_listed(
            "org-a",
            &[json!({"id": "acc-3", "customer": {"name": "x".repeat(5000)}})],
            t0,
        );
        let Known::Named(long) = cache.lookup("org-a", "acc-3", t0) else {
            panic!("named")
        };
        assert_eq!(long.chars().count(), MAX_NAME_CHARS);
    }

    #[test]
    fn n6_the_cache_is_bounded() {
        let cache = NameCache::new();
        let t0 = Instant::now();
        for i in 0..MAX_NAMED_ACCOUNTS + 10 {
            cache.remember("org", &format!("acc-{i}"), Some("n"), t0);
        }
        assert!(cache.with(|e| e.len()) <= MAX_NAMED_ACCOUNTS);
    }

    #[test]
    fn n6_fh2_one_unknown_account_is_read_by_id_and_several_by_one_page_of_accounts() {
        let records: Vec<Value> = ["a", "b", "b", "c", "c", "a", "d"]
            .iter()
            .map(|id| json!({"billing_account_id": id}))
            .collect();
        let accounts = accounts_of(&records);
        assert_eq!(accounts, [("a", 2), ("b", 2), ("c", 2), ("d", 1)]);
        let cache = NameCache::new();
        let now = Instant::now();
        cache.remember("org", "a", Some("Ana"), now);
        cache.remember("org", "b", None, now);
        let page = lookup_page(&cache, "org", &accounts, now);
        assert_eq!(page.names.get("a").map(String::as_str), Some("Ana"));
        assert_eq!(page.names.len(), 1);
        assert_eq!(page.unnamed, ["b"]);
        assert_eq!(page.unknown, [("c", 2), ("d", 1)]);
        // Two never read: one page of accounts names both at once.
        assert_eq!(plan(&cache, &page), NamesCall::List);
        // One never read: its own read.
        let one = lookup_page(&cache, "org", &accounts[..3], now);
        assert_eq!(plan(&cache, &one), NamesCall::One("c"));
        // Everything known: no call.
        let known = lookup_page(&cache, "org", &accounts[..2], now);
        assert_eq!(plan(&cache, &known), NamesCall::None);
        assert_eq!(next_to_read(&[]), None);
    }

    #[test]
    fn fh2_lists_without_customers_turn_the_round_to_one_account_at_a_time() {
        let cache = NameCache::new();
        let now = Instant::now();
        assert_eq!(cache.lists_name(), None);
        // An empty list says nothing of Kobana's lists.
        cache.learn_listed("org", &[], now);
        assert_eq!(cache.lists_name(), None);
        cache.learn_listed("org", &[json!({"id": "x"}), json!({"id": "y"})], now);
        assert_eq!(cache.lists_name(), Some(false));
        let accounts = [("c", 1), ("d", 3)];
        let page = lookup_page(&cache, "org", &accounts, now);
        // The most rows first: converging over later calls, as a page of accounts cannot.
        assert_eq!(plan(&cache, &page), NamesCall::One("d"));
        cache.learn_listed("org", &[json!({"id": "x", "customer": {"name": "X"}})], now);
        assert_eq!(cache.lists_name(), Some(true));
        assert_eq!(plan(&cache, &page), NamesCall::List);
    }

    #[test]
    fn fh2_accounts_a_page_of_accounts_did_not_hold_are_read_one_at_a_time() {
        let cache = NameCache::new();
        let now = Instant::now();
        cache.learn_listed(
            "org",
            &[json!({"id": "a", "customer": {"name": "Ana"}})],
            now,
        );
        let accounts = [("a", 1), ("b", 2), ("c", 5)];
        let page = lookup_page(&cache, "org", &accounts, now);
        cache.learn_unlisted("org", &page.unknown, now);
        assert_eq!(cache.lookup("org", "b", now), Known::Unlisted);
        assert_eq!(cache.lookup("org", "a", now), Known::Named("Ana".into()));
        let again = lookup_page(&cache, "org", &accounts, now);
        assert_eq!(again.unlisted, [("b", 2), ("c", 5)]);
        assert_eq!(plan(&cache, &again), NamesCall::One("c"));
        // Each reason reads as pt-BR words, never a code.
        for missing in [
            Missing::NoPermission,
            Missing::NotSent,
            Missing::NotRead,
            Missing::ReadFailed,
        ] {
            assert!(missing.text().contains(' '), "{missing:?}");
        }
    }
}
