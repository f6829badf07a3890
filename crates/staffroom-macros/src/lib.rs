//! `#[request]`: a request type's fields state their bounds once, in `#[field(...)]`, and the
//! attribute writes from that one statement both the field's `#[schema(...)]` bounds (for the
//! OpenAPI document and the UI's types) and the type's `Request::from_input`, which reads every
//! field and refuses with every bad one named (`api::Fields`).
//!
//! ```ignore
//! #[request]
//! #[derive(Serialize, ts_rs::TS, utoipa::ToSchema)]
//! #[serde(rename_all = "camelCase")]
//! pub struct RefundRequest {
//!     #[field(pattern = "^[A-Za-z0-9-]{1,64}$", message = "is not a valid id")]
//!     pub id: String,
//!     #[field(min = 1, max = 2147483647)]
//!     pub amount: Option<u32>,
//! }
//! ```
//!
//! What a field may say (an `Option` field may be absent; any other is required):
//! - `min = N, max = M`: a whole number from N to M (`u16`, `u32` or `u64`), as a JSON number;
//!   the schema's `minimum` and `maximum`.
//! - `text`: any string (its rules are the service's).
//! - `pattern = "regex"`, `min_length = N`, `max_length = M`, `check = path`, each with the others
//!   or alone: a string matching the pattern, of N to M characters (as JSON Schema counts them),
//!   for which `path(&str) -> bool` holds; else `message = "..."` (needed with a pattern or a
//!   check). The schema gets `pattern`, `minLength` and `maxLength`; a check is for what a schema
//!   cannot say, and the test of every operation's parser against its schema names each one.
//! - `trim` beside any of those: the string is kept without the white space around it.
//! - `rule = PATH`: a string keeping a `TextRule` (its check, its refusal, and the JSON Schema
//!   formats that say it), which writes the field's schema too.
//!
//! A string field's type is `String` or any type made `From<String>` (a `Secret`).
//! - `choice`: one of a text enum's `NAMES`.
//! - `one_of = NAMES`: one of a `&[&str]` of names, as a `String`; the schema lists them.
//! - `nested`: an object, read by the field's own request type (its refusals named under the
//!   field: `location.index`).
//! - `items, min_items = N, max_items = M`: a list of N to M objects, each read by the item
//!   type's request (refusals named `requests[2].range.endIndex`).
//! - `any`: any JSON value, passed on as given.
//! - `flag`: `true` or `false`.
//! - `with = path`: read by `path(&mut Fields) -> T`, for a field with rules of its own.
//!
//! On the struct, `#[request(only = "message")]` refuses any field it does not declare, and
//! `#[request(check = path)]` keeps a rule between fields: once every field is fine on its own,
//! `path(&Self) -> Vec<FieldError>` names the fields that break it (none: the request stands).

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Fields, Ident, ItemStruct, Lit, LitStr, Meta, Path, Token, Type};

#[proc_macro_attribute]
pub fn request(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut item = syn::parse_macro_input!(item as ItemStruct);
    match expand(args.into(), &mut item) {
        Ok(parser) => quote!(#item #parser).into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// How one field is read.
enum Kind {
    Number { min: Expr, max: Expr },
    Text(TextBounds),
    Rule(Path),
    Choice,
    Flag,
    With(Path),
    /// An object read by the field's own request type.
    Nested,
    /// A list of `min` to `max` objects, each read by the item type's request.
    Items { min: Expr, max: Expr },
    /// One of a list of names (`&[&str]`), which the schema lists.
    OneOf(Path),
    /// Any JSON value, passed on as given.
    Any,
}

/// What a string field must be; all optional (`text` alone is any string).
#[derive(Default)]
struct TextBounds {
    pattern: Option<LitStr>,
    check: Option<Path>,
    min_length: Option<Expr>,
    max_length: Option<Expr>,
    message: Option<LitStr>,
    /// Kept without the white space around it (checked as given).
    trim: bool,
}

struct Field {
    ident: Ident,
    /// The field's name in the input (camelCase when the struct says so).
    name: String,
    /// The type inside `Option`, and whether the field is optional.
    inner: Type,
    optional: bool,
    kind: Kind,
}

fn expand(args: Tokens, item: &mut ItemStruct) -> syn::Result<Tokens> {
    let options = parse_options(args)?;
    let camel = renames_to_camel_case(&item.attrs);
    let Fields::Named(named) = &mut item.fields else {
        return Err(syn::Error::new_spanned(&item.ident, "#[request] needs a struct with named fields"));
    };
    let mut fields = Vec::new();
    let mut schemas = Vec::new();
    let ty = item.ident.clone();
    for field in named.named.iter_mut() {
        let ident = field.ident.clone().expect("named");
        let Some(position) = field.attrs.iter().position(|a| a.path().is_ident("field")) else {
            return Err(syn::Error::new_spanned(&ident, "every field of a #[request] needs #[field(...)]"));
        };
        if let Some(serde) = field.attrs.iter().find(|a| a.path().is_ident("serde") && renames_or_skips(a)) {
            return Err(syn::Error::new_spanned(
                serde,
                "#[request] reads a field by its own name (camelCase when the struct says so): rename, alias, skip or flatten it in a hand-written from_input",
            ));
        }
        let attribute = field.attrs.remove(position);
        let kind = parse_kind(&attribute)?;
        if let Some(schema) = schema_of(&kind) {
            field.attrs.push(syn::parse_quote!(#[schema(#schema)]));
        }
        // A rule's or a list of names' schema is written by a function, given the field's doc
        // comment and whether it may be absent.
        let written = match &kind {
            Kind::OneOf(names) => Some(quote!(::staffroom_base::request::one_of_schema(#names, __description, __optional))),
            Kind::Rule(rule) => Some(quote!(#rule.schema(__description, __optional))),
            _ => None,
        };
        if let Some(written) = written {
            let function = rule_schema_fn(&ty, &ident);
            let description = doc_of(&field.attrs);
            let optional = option_of(&field.ty).is_some();
            field.attrs.push(syn::parse_quote!(#[schema(schema_with = #function)]));
            schemas.push(quote! {
                #[doc(hidden)]
                fn #function() -> ::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema> {
                    let (__description, __optional) = (#description, #optional);
                    #written
                }
            });
        }
        let raw = ident.to_string();
        if !camel && raw.contains('_') {
            return Err(syn::Error::new_spanned(
                &ident,
                "a multi-word field needs #[serde(rename_all = \"camelCase\")]",
            ));
        }
        let name = if camel { heck::ToLowerCamelCase::to_lower_camel_case(raw.as_str()) } else { raw };
        let (inner, optional) = match option_of(&field.ty) {
            Some(inner) => (inner.clone(), true),
            None => (field.ty.clone(), false),
        };
        fields.push(Field { ident, name, inner, optional, kind });
    }
    let parser = parser(&item.ident, &fields, options);
    Ok(quote!(#parser #(#schemas)*))
}

/// The struct's own options: `only = "message"`, `check = path`.
#[derive(Default)]
struct Options {
    only: Option<LitStr>,
    check: Option<Path>,
}

fn parse_options(args: Tokens) -> syn::Result<Options> {
    let mut options = Options::default();
    let items = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;
    for item in items {
        match item {
            Meta::NameValue(nv) if nv.path.is_ident("only") => options.only = Some(string_of(&nv.value)?),
            Meta::NameValue(nv) if nv.path.is_ident("check") => options.check = Some(path_of(&nv.value)?),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "expected #[request], #[request(only = \"message\")] or #[request(check = path)]",
                ))
            }
        }
    }
    Ok(options)
}

/// Whether the struct has `#[serde(rename_all = "camelCase")]`.
fn renames_to_camel_case(attrs: &[Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("serde")).any(|a| {
        let mut camel = false;
        let _ = a.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                camel = meta.value()?.parse::<LitStr>()?.value() == "camelCase";
            } else if meta.input.peek(Token![=]) {
                meta.value()?.parse::<Expr>()?;
            }
            Ok(())
        });
        camel
    })
}

/// Whether a field's `#[serde(...)]` changes the name it is read by, or whether it is read.
fn renames_or_skips(attribute: &Attribute) -> bool {
    let mut found = false;
    let _ = attribute.parse_nested_meta(|meta| {
        if ["rename", "alias", "skip", "skip_deserializing", "flatten"].iter().any(|name| meta.path.is_ident(name)) {
            found = true;
        }
        if meta.input.peek(Token![=]) {
            meta.value()?.parse::<Expr>()?;
        }
        Ok(())
    });
    found
}

/// The type inside `Option<T>`.
fn option_of(ty: &Type) -> Option<&Type> {
    argument_of(ty, "Option")
}

/// The item type of a `Vec<T>`.
fn vec_of(ty: &Type) -> Option<&Type> {
    argument_of(ty, "Vec")
}

/// `T` of a type written `wrapper<T>`.
fn argument_of<'a>(ty: &'a Type, wrapper: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != wrapper {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        syn::GenericArgument::Type(inner) => Some(inner),
        _ => None,
    }
}

fn string_of(expr: &Expr) -> syn::Result<LitStr> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Ok(s.clone()),
        other => Err(syn::Error::new_spanned(other, "expected a string")),
    }
}

fn path_of(expr: &Expr) -> syn::Result<Path> {
    match expr {
        Expr::Path(p) => Ok(p.path.clone()),
        other => Err(syn::Error::new_spanned(other, "expected a path to a function")),
    }
}

fn parse_kind(attribute: &Attribute) -> syn::Result<Kind> {
    let items =
        Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attribute.meta.require_list()?.tokens.clone())?;
    let mut values = std::collections::BTreeMap::new();
    let mut words = Vec::new();
    for item in &items {
        match item {
            Meta::Path(p) => words.push(p.get_ident().map(Ident::to_string).unwrap_or_default()),
            Meta::NameValue(nv) => {
                values.insert(nv.path.get_ident().map(Ident::to_string).unwrap_or_default(), nv.value.clone());
            }
            Meta::List(l) => return Err(syn::Error::new_spanned(l, "unexpected list")),
        }
    }
    let keys: Vec<&str> = values.keys().map(String::as_str).collect();
    let expected = || {
        syn::Error::new_spanned(
            attribute,
            "expected one of: min = N, max = M | text | pattern, min_length, max_length, check (with message), trim | rule = PATH | one_of = NAMES | choice | flag | nested | items, min_items, max_items | any | with = path",
        )
    };
    // `trim` goes with any string kind.
    let trim = words.iter().any(|w| w == "trim");
    words.retain(|w| w != "trim");
    let kind = match (words.as_slice(), keys.as_slice()) {
        ([word], []) if word == "choice" => Kind::Choice,
        ([word], []) if word == "flag" => Kind::Flag,
        ([word], []) if word == "text" => Kind::Text(TextBounds { trim, ..TextBounds::default() }),
        ([], ["max", "min"]) => Kind::Number { min: values["min"].clone(), max: values["max"].clone() },
        ([], ["with"]) => Kind::With(path_of(&values["with"])?),
        ([], ["rule"]) => Kind::Rule(path_of(&values["rule"])?),
        ([], ["one_of"]) => Kind::OneOf(path_of(&values["one_of"])?),
        ([word], []) if word == "nested" => Kind::Nested,
        ([word], []) if word == "any" => Kind::Any,
        ([word], ["max_items", "min_items"]) if word == "items" => {
            Kind::Items { min: values["min_items"].clone(), max: values["max_items"].clone() }
        }
        ([], keys)
            if !keys.is_empty()
                && keys.iter().all(|k| ["pattern", "check", "min_length", "max_length", "message"].contains(k)) =>
        {
            let bounds = TextBounds {
                pattern: values.get("pattern").map(string_of).transpose()?,
                check: values.get("check").map(path_of).transpose()?,
                min_length: values.get("min_length").cloned(),
                max_length: values.get("max_length").cloned(),
                message: values.get("message").map(string_of).transpose()?,
                trim,
            };
            if (bounds.pattern.is_some() || bounds.check.is_some()) && bounds.message.is_none() {
                return Err(syn::Error::new_spanned(attribute, "a pattern or a check needs message = \"...\""));
            }
            if bounds.pattern.is_none() && bounds.check.is_none() && bounds.min_length.is_none() && bounds.max_length.is_none() {
                return Err(expected());
            }
            Kind::Text(bounds)
        }
        _ => return Err(expected()),
    };
    Ok(kind)
}

/// The schema bounds a kind states.
fn schema_of(kind: &Kind) -> Option<Tokens> {
    match kind {
        Kind::Number { min, max } => Some(quote!(minimum = #min, maximum = #max)),
        Kind::Items { min, max } => Some(quote!(min_items = #min, max_items = #max)),
        Kind::Text(bounds) => {
            let mut parts = Vec::new();
            if let Some(pattern) = &bounds.pattern {
                parts.push(quote!(pattern = #pattern));
            }
            if let Some(min) = &bounds.min_length {
                parts.push(quote!(min_length = #min));
            }
            if let Some(max) = &bounds.max_length {
                parts.push(quote!(max_length = #max));
            }
            (!parts.is_empty()).then(|| quote!(#(#parts),*))
        }
        _ => None,
    }
}

/// The name of the function that writes a field's schema (a rule's, a list of names').
fn rule_schema_fn(ty: &Ident, field: &Ident) -> Ident {
    Ident::new(&format!("__{}_{}_schema", heck::ToSnakeCase::to_snake_case(ty.to_string().as_str()), field), field.span())
}

/// A field's doc comment, as utoipa writes it into the schema's description.
fn doc_of(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => string_of(&nv.value).ok().map(|s| s.value()),
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).to_string())
        .collect();
    lines.join("\n").trim().to_string()
}

/// The local a field is read into: prefixed, so that no field name shadows `__fields` or a
/// function the attribute calls.
fn local(ident: &Ident) -> Ident {
    Ident::new(&format!("__field_{ident}"), ident.span())
}

/// The statements reading one field into its local.
fn read(field: &Field) -> Tokens {
    let Field { ident, name, inner, optional, kind } = field;
    let value = local(ident);
    // A required field that was not read has a problem named, so that `finish` never builds
    // the value without it.
    let required = (!optional).then(|| {
        quote! {
            if __fields.value(#name).is_none() {
                __fields.problem(#name, "is required");
            } else if #value.is_none() && !__fields.has_problem(#name) {
                __fields.problem(#name, "is not valid");
            }
        }
    });
    let reading = match kind {
        Kind::Number { min, max } => quote! {
            // The bounds keep the number within the field's type (a port's `u16`).
            let #value = __fields.whole_number(#name, #min, #max).map(|n| {
                <#inner as ::core::convert::TryFrom<u32>>::try_from(n).expect("the field's bounds fit its type")
            });
        },
        Kind::Choice => quote! {
            let #value = __fields.choice(#name, <#inner>::NAMES).and_then(<#inner>::parse);
        },
        Kind::Flag => quote! {
            let #value = __fields.flag(#name);
        },
        Kind::Text(bounds) => {
            let message = bounds.message.as_ref().map(|m| quote!(#m)).unwrap_or_else(|| {
                let words = match (&bounds.min_length, &bounds.max_length) {
                    (Some(min), Some(max)) => quote!(format!("must be {} to {} characters", #min, #max)),
                    (Some(min), None) => quote!(format!("must be at least {} characters", #min)),
                    (None, Some(max)) => quote!(format!("must be at most {} characters", #max)),
                    (None, None) => quote!("is not valid"),
                };
                quote!(#words)
            });
            let mut tests = Vec::new();
            if let Some(pattern) = &bounds.pattern {
                tests.push(quote! {{
                    static PATTERN: ::std::sync::LazyLock<::staffroom_base::request::Regex> =
                        ::std::sync::LazyLock::new(|| ::staffroom_base::request::Regex::new(#pattern).expect("a valid pattern"));
                    PATTERN.is_match(value)
                }});
            }
            if let Some(min) = &bounds.min_length {
                tests.push(quote!(value.chars().count() >= (#min) as usize));
            }
            if let Some(max) = &bounds.max_length {
                tests.push(quote!(value.chars().count() <= (#max) as usize));
            }
            if let Some(check) = &bounds.check {
                tests.push(quote!(#check(value)));
            }
            // An empty string where a required field must have characters is no value at all.
            let empty = (!optional && bounds.min_length.is_some()).then(|| {
                quote! {
                    if __text == Some("") {
                        __fields.problem(#name, "is required");
                    } else
                }
            });
            let refuse = (!tests.is_empty()).then(|| {
                quote! {
                    #empty
                    if __text.is_some_and(|value: &str| !(#(#tests)&&*)) {
                        __fields.problem(#name, #message);
                    }
                }
            });
            let kept = if bounds.trim { quote!(text.trim()) } else { quote!(text) };
            quote! {
                let __text = __fields.string(#name);
                #refuse
                let #value = __text.map(|text| <#inner as ::core::convert::From<::std::string::String>>::from(#kept.to_owned()));
            }
        }
        Kind::Rule(rule) => quote! {
            let __text = __fields.string(#name);
            if __text.is_some_and(|value: &str| !(#rule.check)(value)) {
                __fields.problem(#name, #rule.message);
            }
            let #value = __text.map(|text| <#inner as ::core::convert::From<::std::string::String>>::from(text.to_owned()));
        },
        Kind::With(path) => return quote!(let #value = #path(&mut __fields);),
        Kind::Nested => quote! {
            let #value = __fields.nested::<#inner>(#name);
        },
        Kind::Items { min, max } => {
            let Some(item) = vec_of(inner) else {
                return syn::Error::new_spanned(inner, "`items` needs a Vec of a request type").to_compile_error();
            };
            quote! {
                let #value = __fields.items::<#item>(#name, (#min) as usize, (#max) as usize);
            }
        }
        Kind::OneOf(names) => quote! {
            let #value = __fields.one_of(#name, #names).map(<#inner as ::core::convert::From<::std::string::String>>::from);
        },
        Kind::Any => quote! {
            let #value = __fields.any(#name);
        },
    };
    quote! {
        // Each field in a block of its own, so that the statics of two patterns do not meet.
        let #value = { #reading #required #value };
    }
}

fn parser(ty: &Ident, fields: &[Field], options: Options) -> Tokens {
    let only = options.only.map(|message| {
        let names = fields.iter().map(|f| f.name.as_str());
        quote!(__fields.only(&[#(#names),*], #message);)
    });
    let reads = fields.iter().map(read);
    let finish = fields.iter().map(|Field { ident, optional, kind, .. }| {
        let value = local(ident);
        match (kind, optional) {
            (Kind::With(_), _) | (_, true) => quote!(#ident: #value),
            // Present whenever no field was refused, which is when `finish` calls this.
            (_, false) => quote!(#ident: #value.expect("checked")),
        }
    });
    // Rules between fields, once each field is fine on its own: `check(&Self)` names the
    // fields that break one.
    let checked = match options.check {
        Some(check) => quote! {
            let __request = __fields.finish(|| #ty { #(#finish),* })?;
            let __problems: ::std::vec::Vec<::staffroom_base::error::FieldError> = #check(&__request);
            if __problems.is_empty() {
                Ok(__request)
            } else {
                Err(::staffroom_base::error::Error::invalid(__problems))
            }
        },
        None => quote!(__fields.finish(|| #ty { #(#finish),* })),
    };
    quote! {
        impl ::staffroom_base::request::Request for #ty {
            fn from_input(input: &::staffroom_base::request::Input) -> ::staffroom_base::error::Result<Self> {
                let mut __fields = ::staffroom_base::request::Fields::new(input);
                #only
                #(#reads)*
                #checked
            }
        }
    }
}
