//! The server against Kobana's published material: the requests once off the contract,
//! fixed end to end, and the same outcomes under every reading of its open points (RK-2).

mod fixes;
mod readings;
