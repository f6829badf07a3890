// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // Everything the app writes (database, WAL, logs) is private to its owner.
    staffroom::data_dir::private_files_from_now_on();
    staffroom::memory::unmap_large_blocks_when_freed();
    staffroom_desktop::run();
}
