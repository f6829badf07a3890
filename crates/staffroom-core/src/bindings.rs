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

/// The named TypeScript types that `T`'s name uses, with their files: `T` itself when it has a
/// file, else the types it is made of (a `Vec<UserDto>` uses `UserDto`).
pub fn imports_of<T: TS + ?Sized + 'static>() -> Vec<(String, PathBuf)> {
    if let Some(path) = T::output_path() {
        return vec![(T::ident(&config()), path)];
    }
    struct Collect(Vec<(String, PathBuf)>);
    impl TypeVisitor for Collect {
        fn visit<U: TS + 'static + ?Sized>(&mut self) {
            self.0.extend(imports_of::<U>());
        }
    }
    let mut collect = Collect(Vec::new());
    T::visit_generics(&mut collect);
    collect.0
}

/// The UI's typed client of `operations` (`ui/src/ops.ts`, beside the bindings folder): a map of every operation to
/// its request and response types, and one function per operation.
pub fn client_module(operations: &[(crate::api::OpSpec, crate::api::OpTypes)]) -> String {
    let mut imports = BTreeMap::new();
    let mut map = String::new();
    let mut functions = String::new();
    let mut admin_only = Vec::new();
    for (spec, types) in operations {
        if matches!(spec.access, crate::api::Access::Admin) {
            admin_only.push(format!("\"{}\"", spec.name));
        }
        for (name, path) in (types.ts_imports)() {
            let module = format!("./bindings/{}", path.with_extension("").display());
            imports.insert(name, module);
        }
        let (request, response) = (types.ts_names)();
        map.push_str(&format!("  {}: {{ request: {request}; response: {response} }};\n", spec.name));
        let function = heck::ToLowerCamelCase::to_lower_camel_case(spec.name);
        let (params, args) = if (types.no_input)() {
            (String::new(), "{}".to_string())
        } else {
            (format!("request: {request}"), "request".to_string())
        };
        functions.push_str(&format!(
            "    /** {} */\n    {function}: ({params}) => call(\"{}\", {args}),\n",
            spec.summary, spec.name
        ));
    }
    let imports: String =
        imports.iter().map(|(name, module)| format!("import type {{ {name} }} from \"{module}\";\n")).collect();
    format!(
        "// Generated from the operations' declarations by the desktop shell's tests/bindings.rs\n\
         // (scripts/gen-types): do not edit.\n{imports}\n\
         /** Every operation a window may call: what it takes and what it answers. */\n\
         export type Operations = {{\n{map}}};\n\n\
         /** Calls one operation; rejects with the error object. */\n\
         export type Call = <K extends keyof Operations>(op: K, request: Operations[K][\"request\"]) => Promise<Operations[K][\"response\"]>;\n\n\
         /** The operations only an admin may call (the rest: any signed-in staff member). */\n\
         export const ADMIN_ONLY: ReadonlySet<keyof Operations> = new Set<keyof Operations>([{admin_only}]);\n\n\
         /** One function per operation, over `call`. */\n\
         export function client(call: Call) {{\n  return {{\n{functions}  }};\n}}\n",
        admin_only = admin_only.join(", ")
    )
}

/// Compares `text` with the file at `path`, or writes it there when `write`.
pub fn sync_file(path: &Path, text: &str, write: bool) -> Result<(), String> {
    let current = std::fs::read_to_string(path).ok();
    if current.as_deref() == Some(text) {
        return Ok(());
    }
    if write {
        return std::fs::write(path, text).map_err(|e| format!("{}: could not write it: {e}", path.display()));
    }
    Err(format!(
        "{} is not what the operations' declarations generate; run scripts/gen-types, then commit the result",
        path.display()
    ))
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
