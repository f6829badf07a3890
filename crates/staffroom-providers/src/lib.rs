//! How Staffroom speaks to its two providers: the Lemon Squeezy client, its JSON:API objects,
//! webhook payloads and signatures; Google's document model and the batchUpdate planner; and the
//! retry policy both clients follow. No storage and no service here: the core builds on these.

pub mod google;
pub mod lemonsqueezy;
pub mod retry;
