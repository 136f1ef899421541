//! Where `houserule` looks for rulesets: see [`houserule_app::catalog::default_folders`].

use houserule_app::catalog::Catalog;

pub fn catalog() -> Catalog {
    houserule_app::catalog::default_catalog()
}
