//! The UI's TypeScript types, rendered by ts-rs from the DTOs that derive `ts_rs::TS`, into
//! `ui/src/bindings/`. Each crate renders its own types from a test (`tests/bindings.rs` here and
//! in the desktop shell): the test fails while the committed files differ from what the Rust
//! types render, and writes them instead when `scripts/gen-types` asks it to.

use std::any::TypeId;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use ts_rs::{Config, TypeVisitor, TS};

/// The ts-rs settings of every binding.
pub fn config() -> Config {
    // serde_json writes 64-bit integers as plain JSON numbers and `JSON.parse` reads them as
    // `number`, never `bigint` (ts-rs's default); our ids and counts stay far below 2^53.
    Config::new().with_large_int("number")
}

/// A set of rendered binding files, by path relative to the bindings folder.
#[derive(Default)]
pub struct Bindings {
    files: BTreeMap<PathBuf, String>,
    seen: HashSet<TypeId>,
}

impl Bindings {
    /// An empty set.
    pub fn new() -> Self {
        Bindings::default()
    }

    /// Renders `T` and, as ts-rs's own export does, every exportable type it refers to.
    pub fn add<T: TS + ?Sized + 'static>(mut self) -> Self {
        self.render::<T>();
        self
    }

    fn render<T: TS + ?Sized + 'static>(&mut self) {
        if !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        // A type without a file of its own (a `Vec`, an `Option`) still brings the types in it.
        if let Some(path) = T::output_path() {
            let text = T::export_to_string(&config()).unwrap_or_else(|e| panic!("rendering {path:?}: {e}"));
            self.files.insert(path, text);
        }
        struct Visit<'a>(&'a mut Bindings);
        impl TypeVisitor for Visit<'_> {
            fn visit<U: TS + 'static + ?Sized>(&mut self) {
                self.0.render::<U>();
            }
        }
        T::visit_dependencies(&mut Visit(self));
    }

    /// Compares the rendered files with those under `dir`, or writes them there when `write`.
    /// `owned` is the sub-folder of `dir` (`""` for `dir` itself) whose `.ts` files all come from
    /// this set: any other file there is stale (and deleted when writing). Files this set renders
    /// elsewhere, like the core types a desktop type refers to, are compared or written too.
    pub fn sync(&self, dir: &Path, owned: &str, write: bool) -> Result<(), String> {
        let mut problems = Vec::new();
        for (path, text) in &self.files {
            let file = dir.join(path);
            if write {
                let written = file.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| {
                    if std::fs::read_to_string(&file).ok().as_deref() == Some(text.as_str()) {
                        Ok(())
                    } else {
                        std::fs::write(&file, text)
                    }
                });
                if let Err(err) = written {
                    problems.push(format!("{}: could not write it: {err}", path.display()));
                }
            } else {
                match std::fs::read_to_string(&file) {
                    Ok(committed) if committed == *text => {}
                    Ok(_) => problems.push(format!("{} differs from what the Rust types render", path.display())),
                    Err(_) => problems.push(format!("{} is missing", path.display())),
                }
            }
        }
        let rendered: BTreeSet<&PathBuf> = self.files.keys().collect();
        for path in ts_files(dir, Path::new(owned)) {
            if rendered.contains(&path) {
                continue;
            }
            if write {
                if let Err(err) = std::fs::remove_file(dir.join(&path)) {
                    problems.push(format!("{}: could not delete it: {err}", path.display()));
                }
            } else {
                problems.push(format!("{} is stale: no Rust type renders it", path.display()));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else if write {
            Err(problems.join("\n"))
        } else {
            Err(format!(
                "the TypeScript bindings in ui/src/bindings are not those of the Rust types:\n  {}\n\
                 Run scripts/gen-types to regenerate them, then commit the result.",
                problems.join("\n  ")
            ))
        }
    }
}

/// The `.ts` files directly in `dir/owned`, as paths relative to `dir`.
fn ts_files(dir: &Path, owned: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir.join(owned)) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .map(|entry| owned.join(entry.file_name()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "ts"))
        .collect();
    files.sort();
    files
}
