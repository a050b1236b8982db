//! The real function binary under a Lambda Runtime API emulator: API Gateway events
//! and the endpoint's identity under Lambda (BW-4).

pub mod support;

mod events;
mod identity;
