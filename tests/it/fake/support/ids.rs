//! Fixture ids used across the tests (reference §10).

pub const MARIANA: &str = "23b8c1e9-3924-46de-beb1-3b9046685257";
pub const PADARIA: &str = "972a8469-1641-4f82-8b9d-2434e465e150";
pub const RAFAEL: &str = "6b65a6a4-8b81-48f6-b38a-088ca65ed389";
pub const BA_MARIANA: &str = "6c307511-b2b9-437a-a8df-6ec4ce4a2bbd";
pub const BA_PADARIA: &str = "371ecd7b-27cd-4130-8722-9389571aa876";
pub const BA_HORIZONTE: &str = "1a2a73ed-562b-4f79-8374-59eef50bea63";
pub const BA_RAFAEL: &str = "5be6128e-18c2-4797-a142-ea7d17be3111";
pub const SUB_ACTIVE: &str = "43b7a3a6-9a8d-4a03-980d-7b71d8f56413";
pub const SUB_PAST_DUE: &str = "ec1b8ca1-f91e-4d4c-9ff4-9b7889463e85";
pub const SUB_CANCELED: &str = "e2acf72f-9e57-4f7a-a0ee-89aed453dd32";
pub const INV_DRAFT: &str = "3139d32c-93cd-49bf-9c94-1cf0dc98d2c1";
pub const INV_OPEN: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";
pub const INV_OVERDUE: &str = "c5fd4a91-2d3e-4b7a-8e61-0a9f3b2c7d11";
pub const INV_PAID_NFE_ISSUED: &str = "8e2f7c44-5b19-4d0a-9c3e-6f1a2b3c4d55";
pub const INV_PAID_NFE_ERROR: &str = "0d6e1f2a-3b4c-4d5e-8f60-718293a4b5c6";
pub const INV_VOID: &str = "a7b8c9d0-e1f2-4a3b-9c4d-5e6f7a8b9c0d";
pub const INV_UNCOLLECTIBLE: &str = "f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9";
/// The fake's own paid invoice whose money unit nothing can verify (`UNVERIFIED_INVOICE`).
pub const INV_UNVERIFIED: &str = "6a1d9e3b-2c4f-4e8a-b7d5-0f3c9a8e1b24";
pub const NFE_ISSUED: &str = "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";
pub const NFE_ERROR: &str = "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a";
pub const PAY_CARD: &str = "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60";
pub const PAY_PIX: &str = "9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
pub const PAY_FAILED: &str = "e4d3c2b1-a0f9-4e8d-b7c6-a5b4c3d2e1f0";
pub const PAY_BOLETO_PENDING: &str = "b7e6d5c4-3a2b-4c1d-8e9f-0a1b2c3d4e5f";
pub const PLAN_PRO: &str = "759cde66-bacf-43d0-8b1f-9163ce9ff57f";
pub const PLAN_ENTERPRISE_HORIZONTE: &str = "4b0dbb41-8d52-48f1-942c-3fe860e7a113";
pub const PLAN_BASIC_ARCHIVED: &str = "9d77e57d-07e1-4fda-afdf-551fc94f64f8";
pub const PROD_LICENSE: &str = "9e72db5a-fd0b-47de-aade-7e9d13dd0507";
pub const PROD_EXTRA_USER: &str = "38a847db-b6bd-46a7-b8ae-bf1a956e8fcc";
pub const PROD_SUPPORT: &str = "3556dcf7-5205-4688-a950-f2d79d4be0a0";
pub const PROD_NFSE_OVERAGE: &str = "7afe8fcb-e217-40ab-9a18-ec27796ddfe9";
pub const PROD_ONBOARDING: &str = "ac6aacab-3773-4cc2-a7a5-51672be3f350";
pub const PRICE_PRO_LICENSE: &str = "dd1b937f-89b0-4f61-b7bd-3e1896799ed9";
pub const PRICE_EXTRA_USER: &str = "afb266c8-b379-492a-9bf7-fde6eb806a8a";
pub const PRICE_ENTERPRISE_LICENSE: &str = "33d3a897-0112-4619-b69a-14c6863ff68b";
/// The fake's own credits (`tests/fixtures/credits.json`): Padaria's available R$ 50,00, its
/// used one, and Horizonte's expired one.
pub const CREDIT_WELCOME: &str = "b7e4c1d2-3f5a-4b6c-9d8e-0a1b2c3d4e5f";
pub const CREDIT_USED: &str = "c8f5d2e3-4a6b-4c7d-8e9f-1b2c3d4e5f60";
pub const CREDIT_EXPIRED: &str = "d9a6e3f4-5b7c-4d8e-9fa0-2c3d4e5f6a71";
