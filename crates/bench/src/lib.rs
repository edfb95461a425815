//! What the bench binary and its tests share: the synthetic records ([`generate`]) and each
//! tool's largest call with the memory bound stated for it ([`calls`]).

pub mod calls;
pub mod generate;
