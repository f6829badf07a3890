//! When WebKit's web process gives memory back. WebKit tidies up when its process's own dirty
//! memory passes a share of a limit: at the "conservative" share it drops caches it can rebuild
//! and gives the allocator's free pages back (`malloc_trim`); at the "strict" share it also
//! collects the script heap's garbage and throws compiled code away. It checks every 30 s and
//! tidies at every check that finds it over. The limit is the machine's memory, at most 3 GB, and
//! a desktop never reaches it: after a session through every list the web process kept 270 MiB
//! where the sign-in form needs 160, 50 MiB of it free pages only a trim gives back
//! (docs/PERFORMANCE.md, "A fifth pass"). So the app sets a limit a long session passes.
//!
//! The limit is a construct-only property of WebKit's web context (`memory-pressure-settings`),
//! and Tauri's wry builds that context with no way to pass it. So the app wraps the constructor
//! of WebKit's context class (a GObject class vfunc, swapped once, before any window): a
//! construction that leaves the setting unset gets the app's. Every context in the process gets
//! it, the default one included.

#[cfg(target_os = "linux")]
pub use linux::{contexts_given_the_limit, give_web_contexts_a_memory_limit, MEMORY_LIMIT_MB};

/// Nothing to set elsewhere: other platforms' web views manage their own memory.
#[cfg(not(target_os = "linux"))]
pub fn give_web_contexts_a_memory_limit() {}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::CStr;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;

    use webkit2gtk::glib::{ffi::GType, gobject_ffi, translate::*, StaticType};
    use webkit2gtk::{ffi, WebContext};

    /// The web process's memory limit, MB. WebKit tidies at a third of it (WebKit's default
    /// share): about 100 MB of the process's own dirty memory. The sign-in form is 45 MB of it,
    /// a session through every list about 155, and 90 once tidied (measured under Xvfb;
    /// docs/PERFORMANCE.md).
    pub const MEMORY_LIMIT_MB: u32 = 300;

    /// The share of the limit where WebKit also throws compiled code away and collects garbage
    /// (WebKit's default: half). At 90 %, 270 MB, only a runaway page gets that: below it, a
    /// big working set (a long document open) is tidied lightly at each check instead of
    /// having its script recompiled every 30 s.
    const STRICT_SHARE: f64 = 0.9;

    type Constructor =
        unsafe extern "C" fn(GType, u32, *mut gobject_ffi::GObjectConstructParam) -> *mut gobject_ffi::GObject;

    /// How many web contexts were given the limit (the app logs it once its window is built).
    static GIVEN: AtomicUsize = AtomicUsize::new(0);

    /// How many web contexts were built with the app's memory limit.
    pub fn contexts_given_the_limit() -> usize {
        GIVEN.load(Ordering::Relaxed)
    }

    /// The context class's own constructor, which the wrapper calls.
    static WEBKITS_OWN: OnceLock<Constructor> = OnceLock::new();

    /// Makes every web context built from now on carry the app's memory limit. Call on the main
    /// thread before the first window.
    pub fn give_web_contexts_a_memory_limit() {
        // SAFETY: the class is referenced for the rest of the process (never unreferenced), so
        // the pointer stays valid; its constructor slot is swapped once, on the main thread,
        // before any context exists, and the wrapper calls what it replaced.
        unsafe {
            let class =
                gobject_ffi::g_type_class_ref(WebContext::static_type().into_glib()) as *mut gobject_ffi::GObjectClass;
            let Some(own) = (*class).constructor else { return };
            if WEBKITS_OWN.set(own).is_ok() {
                (*class).constructor = Some(construct);
            }
        }
    }

    /// GObject's constructor hook: sets the memory limit among the construct properties, unless
    /// the caller set one, then builds the context as WebKit does.
    unsafe extern "C" fn construct(
        type_: GType,
        count: u32,
        params: *mut gobject_ffi::GObjectConstructParam,
    ) -> *mut gobject_ffi::GObject {
        if !params.is_null() {
            for param in std::slice::from_raw_parts(params, count as usize) {
                let name = CStr::from_ptr(gobject_ffi::g_param_spec_get_name(param.pspec));
                if name == c"memory-pressure-settings" && gobject_ffi::g_value_get_boxed(param.value).is_null() {
                    let settings = ffi::webkit_memory_pressure_settings_new();
                    ffi::webkit_memory_pressure_settings_set_memory_limit(settings, MEMORY_LIMIT_MB);
                    ffi::webkit_memory_pressure_settings_set_strict_threshold(settings, STRICT_SHARE);
                    // The value takes the settings; GObject frees it after construction.
                    gobject_ffi::g_value_take_boxed(param.value, settings as *const _);
                    GIVEN.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        let own = WEBKITS_OWN.get().expect("set before the wrapper is installed");
        own(type_, count, params)
    }

    #[cfg(test)]
    mod tests {
        use webkit2gtk::glib::{gobject_ffi, translate::*, StaticType};
        use webkit2gtk::WebContext;

        /// What the wrapper relies on. That contexts get the limit is checked on the real window
        /// (scripts/desktop/smoke.sh reads the app's log): building one here needs a display.
        #[test]
        fn webkit_s_context_has_the_construct_only_memory_property_the_wrapper_sets() {
            // SAFETY: looks a property up on a referenced class, which outlives the call.
            let flags = unsafe {
                let class = gobject_ffi::g_type_class_ref(WebContext::static_type().into_glib());
                let spec =
                    gobject_ffi::g_object_class_find_property(class as *mut _, c"memory-pressure-settings".as_ptr());
                assert!(!spec.is_null(), "WebKitWebContext has no memory-pressure-settings");
                (*spec).flags
            };
            assert_ne!(flags & gobject_ffi::G_PARAM_CONSTRUCT_ONLY, 0);
        }

        /// The share and the poll the module's figures rest on are WebKit's defaults, and no
        /// process is ever killed for its memory.
        #[test]
        fn webkit_tidies_at_a_third_of_the_limit_checks_every_30_s_and_kills_nothing() {
            // SAFETY: a fresh settings value, read and freed here.
            unsafe {
                let settings = webkit2gtk::ffi::webkit_memory_pressure_settings_new();
                assert_eq!(webkit2gtk::ffi::webkit_memory_pressure_settings_get_conservative_threshold(settings), 0.33);
                assert_eq!(webkit2gtk::ffi::webkit_memory_pressure_settings_get_strict_threshold(settings), 0.5);
                assert_eq!(webkit2gtk::ffi::webkit_memory_pressure_settings_get_kill_threshold(settings), 0.0);
                assert_eq!(webkit2gtk::ffi::webkit_memory_pressure_settings_get_poll_interval(settings), 30.0);
                webkit2gtk::ffi::webkit_memory_pressure_settings_free(settings);
            }
        }
    }
}
