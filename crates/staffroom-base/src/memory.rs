//! Memory the process has freed goes back to the system. glibc's allocator raises its threshold
//! for giving a large block a mapping of its own each time such a block is freed: after the first
//! password hash (argon2 takes 19 MiB and frees it at once), blocks that size come from the heap,
//! and once freed they still count as the app's memory. Opening the core (migrations, the
//! sandbox's seed) and a sync leave free pages inside the heap the same way. Measured at the
//! sign-in form after a first launch, the desktop app's own process: 148 → 124 MiB PSS
//! (docs/PERFORMANCE.md, "Feeling instant"). The desktop uses both; `serve` only trims after a
//! sync (a login there would otherwise map and fault in argon2's 19 MiB each time).

/// Keeps large blocks in mappings of their own, unmapped when freed. Call first thing in `main`,
/// before any thread allocates.
pub fn unmap_large_blocks_when_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; setting the threshold fixes it (glibc then
    // stops adjusting it), which is the point.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_BLOCK);
    }
}

/// glibc's own starting threshold, kept from then on.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const LARGE_BLOCK: libc::c_int = 128 * 1024;

/// Returns the heap's free pages to the system: after a burst of work that freed much.
pub fn release_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only gives free pages of the allocator's own arenas back to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}
