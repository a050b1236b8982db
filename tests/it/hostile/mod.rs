//! Hostile input and a hostile upstream: the malformed-request corpus, request bodies up to
//! the limit, the bounded-work replays, a Kobana that answers huge, slow or lying, upstream
//! faults, the listener's timeouts and the Kobana work per request (BW-1 … BW-8).

pub mod support;

mod bodies;
mod inputs;
mod kobana_work;
mod listener_timeouts;
mod replays;
mod upstream;
mod upstream_faults;
