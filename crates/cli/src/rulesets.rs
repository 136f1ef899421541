//! Where `houserule` looks for rulesets: see [`houserule_engine::catalog::default_folders`].

use houserule_engine::catalog::Catalog;

pub fn catalog() -> Catalog {
    houserule_engine::catalog::default_catalog()
}
