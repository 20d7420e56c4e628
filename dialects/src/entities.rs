//! Entity handles: small `u32` newtypes indexing the arenas of a [`crate::Function`]
//! (values, ops, regions) or of a [`crate::Module`] (functions).
//!
//! Their `Display` is the textual-IR spelling (`%3`, `op7`, `^r1`, `@f2`).

use std::fmt;

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name(pub u32);

        impl $name {
            /// The arena index this handle stands for.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity!(
    /// An SSA value: a function or region parameter, or an op result.
    Value, "%"
);
entity!(
    /// An operation inside a function.
    OpId, "op"
);
entity!(
    /// A region: an ordered list of ops with parameters, owned by a function or an op.
    RegionId, "^r"
);
entity!(
    /// A function of a module.
    FuncId, "@f"
);
