//! Support for the hostile-upstream suite (BW-8): a scriptable hostile Kobana
//! ([`upstream`]) and the server as a child process whose memory, CPU and logs are its own
//! ([`server`]).

#![allow(dead_code)]

pub mod server;
pub mod upstream;
