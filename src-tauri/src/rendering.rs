//! How WebKit paints. By default WebKitGTK paints with the GPU through OpenGL. On a machine with
//! no GPU (a virtual machine, a remote desktop, a thin client) Mesa's llvmpipe stands in for one:
//! the "GPU" work then runs on the CPU anyway, and every kind of drawing compiles a shader
//! through LLVM first. Measured at the sign-in form under Xvfb, that is 40 MiB more of WebKit's
//! web process than WebKit's own CPU painting (docs/PERFORMANCE.md). So where there is no GPU,
//! WebKit is asked to paint with the CPU; a machine with one keeps WebKit's default.

/// WebKitGTK's switch to its CPU painting (Skia's raster backend, on painting threads).
const CPU_PAINTING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";

/// Asks WebKit to paint with the CPU when this machine has no GPU, unless the user chose either
/// way by setting the variable. Called before WebKit starts (its web process inherits the
/// environment) and before any thread that could read the environment.
pub fn paint_with_the_cpu_without_a_gpu() {
    if cfg!(target_os = "linux") && std::env::var_os(CPU_PAINTING).is_none() && !has_gpu() {
        std::env::set_var(CPU_PAINTING, "1");
    }
}

/// Whether OpenGL here would run on a GPU: the kernel offers a DRM render node (as every GPU
/// driver does, including virtual ones with 3D), and Mesa is not told to draw in software.
fn has_gpu() -> bool {
    if std::env::var("LIBGL_ALWAYS_SOFTWARE").is_ok_and(|v| mesa_true(&v)) {
        return false;
    }
    std::fs::read_dir("/dev/dri")
        .is_ok_and(|nodes| nodes.flatten().any(|node| node.file_name().to_string_lossy().starts_with("renderD")))
}

/// Whether Mesa reads a boolean variable as true (`debug_parse_bool_option`: anything else is
/// its default, false here).
fn mesa_true(value: &str) -> bool {
    ["1", "y", "yes", "t", "true"].iter().any(|word| value.eq_ignore_ascii_case(word))
}

#[cfg(test)]
mod tests {
    #[test]
    fn mesa_reads_its_booleans_so() {
        for yes in ["1", "y", "Yes", "TRUE", "t"] {
            assert!(super::mesa_true(yes), "{yes}");
        }
        for no in ["0", "", "no", "false", "f", "n", "2", "on"] {
            assert!(!super::mesa_true(no), "{no}");
        }
    }
}
