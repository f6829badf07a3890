//! Google Docs: the document model as the Docs API sends it, and the planner that turns an edit
//! into the batchUpdate requests Docs applies.

pub mod client;
pub mod lists;
pub mod marks;
pub mod model;
pub mod oauth;
pub mod planner;
pub mod tables;
