//! Enums whose values are fixed words: serialized, shown and stored as those words, so a
//! status or an audit action is one of a known few in Rust and the same text in JSON, the UI's
//! types, the OpenAPI document, SQLite and PostgreSQL (each store reads and writes them as text, through [`TextEnum`]).

/// What a store needs of such an enum: its text, and the value a stored text names. The stores
/// write the text and read it back through this trait, so no database type reaches the core.
pub trait TextEnum: Sized + Copy + 'static {
    /// The enum's name, for the error a stored text that names no value gives.
    const NAME: &'static str;

    /// The value as its text.
    fn as_str(self) -> &'static str;

    /// The value whose text is `text`.
    fn parse(text: &str) -> Option<Self>;
}

/// Declares such an enum: `text_enum! { pub enum OrderStatus { Pending = "pending", … } }`.
#[macro_export]
macro_rules! text_enum {
    ($(#[doc = $doc:literal])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),* $(,)? }) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, ts_rs::TS)]
        $vis enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant),*
        }

        impl $name {
            /// Every value's text, in order.
            pub const NAMES: &'static [&'static str] = &[$($text),*];

            /// The value as its text.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),*
                }
            }

            /// The value whose text is `text`.
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        // Written out rather than derived: utoipa's derive does not see a `rename` whose text
        // comes from a macro argument, and would publish the variants' Rust names.
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                let description = [$($doc),*].map(str::trim).join("\n");
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some($name::NAMES.iter().copied()))
                    .description((!description.is_empty()).then_some(description))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed(stringify!($name))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::text_enum::TextEnum for $name {
            const NAME: &'static str = stringify!($name);

            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }

            fn parse(text: &str) -> Option<Self> {
                $name::parse(text)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use utoipa::PartialSchema;

    crate::text_enum! {
        /// A door's state.
        pub enum DoorState {
            Open = "open",
            HalfOpen = "half_open",
        }
    }

    #[test]
    fn the_schema_lists_the_texts_the_json_carries() {
        let schema = serde_json::to_value(DoorState::schema()).unwrap();
        assert_eq!(schema["type"], "string");
        assert_eq!(schema["enum"], serde_json::json!(["open", "half_open"]));
        assert_eq!(schema["description"], "A door's state.");
        assert_eq!(serde_json::to_value(DoorState::HalfOpen).unwrap(), "half_open");
        assert_eq!(<DoorState as utoipa::ToSchema>::name(), "DoorState");
    }
}
