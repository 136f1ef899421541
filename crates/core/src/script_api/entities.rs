//! Entities, their fields and traits, and table variables.

use super::{opt_string, reg, to_dynamic, visibility, Fallible, Handle};
use crate::entity::Entity;
use crate::traits::{Trait, TraitState};
use crate::tx::{NewEntity, TxError};
use rhai::{Array, Dynamic, Engine, Map, INT};

fn entity_map(e: &Entity) -> Map {
    let mut m = Map::new();
    m.insert("id".into(), e.id.clone().into());
    m.insert("kind".into(), e.kind.clone().into());
    m.insert("name".into(), e.name.clone().into());
    m.insert("owner".into(), e.owner.clone().map(Dynamic::from).unwrap_or(Dynamic::UNIT));
    m.insert("visibility".into(), e.visibility.to_string().into());
    m.insert(
        "fields".into(),
        e.fields.iter().map(|(k, f)| (k.as_str().into(), to_dynamic(&f.value))).collect::<Map>().into(),
    );
    m.insert("traits".into(), e.traits.iter().map(trait_map).collect::<Array>().into());
    m.insert(
        "pools".into(),
        e.pools.iter().map(|(k, p)| (k.as_str().into(), Dynamic::from(p.total() as INT))).collect::<Map>().into(),
    );
    m
}

/// A trait for scripts: every key present (`rating`, `category`, `note` may be `()`; `tags` is
/// always an array).
fn trait_map(t: &Trait) -> Dynamic {
    let opt = |v: Option<Dynamic>| v.unwrap_or(Dynamic::UNIT);
    let mut m = Map::new();
    m.insert("name".into(), t.name.clone().into());
    m.insert("rating".into(), opt(t.rating.map(Dynamic::from)));
    m.insert("category".into(), opt(t.category.clone().map(Dynamic::from)));
    m.insert("state".into(), format!("{:?}", t.state).to_lowercase().into());
    m.insert("uses".into(), Dynamic::from(INT::from(t.uses)));
    m.insert("tags".into(), t.tags.iter().map(|s| Dynamic::from(s.clone())).collect::<Array>().into());
    m.insert("visibility".into(), t.visibility.to_string().into());
    m.insert("note".into(), opt(t.note.clone().map(Dynamic::from)));
    m.into()
}

fn trait_from(name: &str, opts: &Map) -> Fallible<Trait> {
    let mut t = Trait::named(name.trim());
    apply_trait_opts(&mut t, opts)?;
    Ok(t)
}

fn apply_trait_opts(t: &mut Trait, opts: &Map) -> Fallible<()> {
    for (k, v) in opts {
        match k.as_str() {
            "rating" => {
                t.rating =
                    if v.is_unit() { None } else { Some(v.as_int().map_err(|_| "a trait rating is a whole number")?) }
            }
            "category" => t.category = opt_string(v),
            "state" => {
                t.state = TraitState::parse(&v.to_string())
                    .ok_or_else(|| format!("'{v}' is not a trait state: active, sealed or spent"))?
            }
            "uses" => {
                t.uses = u32::try_from(v.as_int().map_err(|_| "uses is a whole number")?)
                    .map_err(|_| "uses cannot be negative")?
            }
            "tags" => {
                t.tags = v
                    .clone()
                    .into_typed_array::<rhai::ImmutableString>()
                    .map_err(|_| "tags is an array of strings")?
                    .into_iter()
                    .map(|s| s.to_string())
                    .collect()
            }
            "visibility" => t.visibility = visibility(&v.to_string())?,
            "note" => t.note = opt_string(v),
            "name" => {}
            other => {
                return Err(format!(
                    "a trait has no '{other}' (use rating, category, state, uses, tags, visibility, note)"
                )
                .into())
            }
        }
    }
    Ok(())
}

fn new_entity(h: &Handle, opts: &Map) -> Fallible<NewEntity> {
    let mut n = NewEntity::default();
    for (k, v) in opts {
        match k.as_str() {
            "id" => n.id = opt_string(v),
            "owner" => n.owner = opt_string(v),
            "visibility" => n.visibility = Some(visibility(&v.to_string())?),
            "fields" => {
                let m = v.clone().try_cast::<Map>().ok_or("fields is a map")?;
                for (fk, fv) in m {
                    n.fields.insert(fk.to_string(), h.json(fv, &format!("field {fk}"))?);
                }
            }
            "traits" => {
                let a = v.clone().try_cast::<Array>().ok_or("traits is an array of names or maps")?;
                for item in a {
                    if let Some(m) = item.clone().try_cast::<Map>() {
                        let name = m.get("name").map(|d| d.to_string()).ok_or("a trait map needs a name")?;
                        n.traits.push(trait_from(&name, &m)?);
                    } else {
                        n.traits.push(Trait::named(item.to_string().trim()));
                    }
                }
            }
            other => {
                return Err(
                    format!("an entity has no option '{other}' (use id, owner, visibility, fields, traits)").into()
                )
            }
        }
    }
    Ok(n)
}

pub(super) fn register(engine: &mut Engine) {
    // ---- entities
    reg!(
        engine,
        "create",
        &["t: Table", "kind: String", "name: String", "String"],
        "Creates an entity of a declared kind; returns its id (made from the name).",
        |h: &mut Handle, kind: &str, name: &str| -> Fallible<String> {
            h.with(|tx| tx.create(kind, name, NewEntity::default()))
        }
    );
    reg!(
        engine,
        "create",
        &["t: Table", "kind: String", "name: String", "options: Map", "String"],
        "Creates an entity with options: id, owner (player name), visibility, fields (map), traits (array of names or maps).",
        |h: &mut Handle, kind: &str, name: &str, opts: Map| -> Fallible<String> {
            let n = new_entity(h, &opts)?;
            h.with(|tx| tx.create(kind, name, n))
        },
    );
    reg!(
        engine,
        "exists",
        &["t: Table", "id: String", "bool"],
        "Whether an entity with this id exists.",
        |h: &mut Handle, id: &str| h.read(|tx| tx.table.entities.contains_key(id))
    );
    reg!(
        engine,
        "find",
        &["t: Table", "id_or_name: String", "?"],
        "The id of the entity with this id or name, or () when there is none.",
        |h: &mut Handle, q: &str| {
            h.read(|tx| tx.table.resolve(q).map(|e| Dynamic::from(e.id.clone())).unwrap_or(Dynamic::UNIT))
        }
    );
    reg!(
        engine,
        "entity",
        &["t: Table", "id: String", "Map"],
        "A copy of an entity: id, kind, name, owner, visibility, fields, traits, pools (totals).",
        |h: &mut Handle, id: &str| -> Fallible<Map> { h.with(|tx| tx.entity(id).map(entity_map)) }
    );
    reg!(
        engine,
        "entities",
        &["t: Table", "Array"],
        "Ids of all entities, in creation order.",
        |h: &mut Handle| -> Array { h.read(|tx| tx.table.entities.keys().map(|k| Dynamic::from(k.clone())).collect()) }
    );
    reg!(
        engine,
        "entities",
        &["t: Table", "kind: String", "Array"],
        "Ids of the entities of one kind, in creation order.",
        |h: &mut Handle, kind: &str| -> Array {
            h.read(|tx| {
                tx.table.entities.values().filter(|e| e.kind == kind).map(|e| Dynamic::from(e.id.clone())).collect()
            })
        }
    );
    reg!(
        engine,
        "remove",
        &["t: Table", "id: String"],
        "Removes an entity (and its place in the turn order).",
        |h: &mut Handle, id: &str| -> Fallible<()> {
            h.with(|tx| {
                tx.entity(id)?;
                if tx.table.turns.seats.contains_key(id) {
                    tx.leave_turns(id)?;
                }
                tx.change(crate::table::Change::Remove { id: id.to_string() })
            })
        }
    );
    reg!(
        engine,
        "rename",
        &["t: Table", "id: String", "name: String"],
        "Renames an entity (its id stays).",
        |h: &mut Handle, id: &str, name: &str| -> Fallible<()> {
            h.with(|tx| {
                tx.entity(id)?;
                tx.change(crate::table::Change::Rename { id: id.to_string(), name: name.trim().to_string() })
            })
        }
    );
    reg!(
        engine,
        "set_owner",
        &["t: Table", "id: String", "player: ?"],
        "Gives an entity to a player (a name), or to nobody with ().",
        |h: &mut Handle, id: &str, owner: Dynamic| -> Fallible<()> {
            let owner = opt_string(&owner);
            h.with(|tx| {
                tx.entity(id)?;
                tx.change(crate::table::Change::SetOwner { id: id.to_string(), owner })
            })
        }
    );
    reg!(
        engine,
        "set_visibility",
        &["t: Table", "id: String", "visibility: String"],
        "Changes who may see an entity: public, owner, gm or hidden (a GM-only NPC revealed, say).",
        |h: &mut Handle, id: &str, vis: &str| -> Fallible<()> {
            let v = visibility(vis)?;
            h.with(|tx| {
                if tx.entity(id)?.visibility == v {
                    return Ok(());
                }
                tx.change(crate::table::Change::SetVisibility { id: id.to_string(), visibility: v })
            })
        }
    );
    reg!(engine, "name", &["t: Table", "id: String", "String"], "An entity's display name.", |h: &mut Handle,
                                                                                              id: &str|
     -> Fallible<String> {
        h.with(|tx| Ok(tx.entity(id)?.name.clone()))
    });
    reg!(engine, "kind", &["t: Table", "id: String", "String"], "An entity's kind.", |h: &mut Handle,
                                                                                      id: &str|
     -> Fallible<String> {
        h.with(|tx| Ok(tx.entity(id)?.kind.clone()))
    });
    reg!(
        engine,
        "owner",
        &["t: Table", "id: String", "?"],
        "The player who owns an entity, or ().",
        |h: &mut Handle, id: &str| -> Fallible<Dynamic> {
            h.with(|tx| Ok(tx.entity(id)?.owner.clone().map(Dynamic::from).unwrap_or(Dynamic::UNIT)))
        }
    );

    // ---- fields
    reg!(
        engine,
        "get",
        &["t: Table", "id: String", "field: String", "?"],
        "A field of an entity, or () when it is not set.",
        |h: &mut Handle, id: &str, field: &str| -> Fallible<Dynamic> {
            h.with(|tx| Ok(tx.entity(id)?.fields.get(field).map(|f| to_dynamic(&f.value)).unwrap_or(Dynamic::UNIT)))
        }
    );
    reg!(
        engine,
        "get",
        &["t: Table", "id: String", "field: String", "default: ?", "?"],
        "A field of an entity, or `default` when it is not set.",
        |h: &mut Handle, id: &str, field: &str, default: Dynamic| -> Fallible<Dynamic> {
            h.with(|tx| Ok(tx.entity(id)?.fields.get(field).map(|f| to_dynamic(&f.value)).unwrap_or(default)))
        }
    );
    reg!(
        engine,
        "set",
        &["t: Table", "id: String", "field: String", "value: ?"],
        "Sets a field (visibility as declared for the kind, else public). Setting () removes it.",
        |h: &mut Handle, id: &str, field: &str, value: Dynamic| -> Fallible<()> {
            let v = if value.is_unit() { None } else { Some(h.json(value, &format!("field {field}"))?) };
            h.with(|tx| tx.set_field(id, field, v, None))
        }
    );
    reg!(
        engine,
        "set",
        &["t: Table", "id: String", "field: String", "value: ?", "visibility: String"],
        "Sets a field with a visibility: public, owner, gm or hidden.",
        |h: &mut Handle, id: &str, field: &str, value: Dynamic, vis: &str| -> Fallible<()> {
            let v = if value.is_unit() { None } else { Some(h.json(value, &format!("field {field}"))?) };
            let vis = visibility(vis)?;
            h.with(|tx| tx.set_field(id, field, v, Some(vis)))
        },
    );
    reg!(engine, "unset", &["t: Table", "id: String", "field: String"], "Removes a field.", |h: &mut Handle,
                                                                                             id: &str,
                                                                                             field: &str|
     -> Fallible<()> {
        h.with(|tx| tx.set_field(id, field, None, None))
    });
    reg!(
        engine,
        "inc",
        &["t: Table", "id: String", "field: String", "by: int", "int"],
        "Adds to a whole-number field (missing counts as 0); returns the new value.",
        |h: &mut Handle, id: &str, field: &str, by: INT| -> Fallible<INT> {
            h.with(|tx| {
                let now = tx
                    .entity(id)?
                    .fields
                    .get(field)
                    .map(|f| {
                        f.value
                            .as_i64()
                            .ok_or_else(|| TxError::Rule(format!("field '{field}' of {id} is not a whole number")))
                    })
                    .transpose()?
                    .unwrap_or(0);
                let next = now.checked_add(by).ok_or_else(|| TxError::Rule("number too large".into()))?;
                tx.set_field(id, field, Some(next.into()), None)?;
                Ok(next)
            })
        }
    );

    // ---- table variables
    reg!(
        engine,
        "get_var",
        &["t: Table", "name: String", "?"],
        "A table variable, or () when it is not set.",
        |h: &mut Handle, name: &str| {
            h.read(|tx| tx.table.vars.get(name).map(|f| to_dynamic(&f.value)).unwrap_or(Dynamic::UNIT))
        }
    );
    reg!(
        engine,
        "get_var",
        &["t: Table", "name: String", "default: ?", "?"],
        "A table variable, or `default` when it is not set.",
        |h: &mut Handle, name: &str, default: Dynamic| {
            h.read(|tx| tx.table.vars.get(name).map(|f| to_dynamic(&f.value)).unwrap_or(default))
        }
    );
    reg!(
        engine,
        "set_var",
        &["t: Table", "name: String", "value: ?"],
        "Sets a table variable (public unless it was set with another visibility). () removes it.",
        |h: &mut Handle, name: &str, value: Dynamic| -> Fallible<()> {
            let v = if value.is_unit() { None } else { Some(h.json(value, &format!("variable {name}"))?) };
            h.with(|tx| tx.set_var(name, v, None))
        }
    );
    reg!(
        engine,
        "set_var",
        &["t: Table", "name: String", "value: ?", "visibility: String"],
        "Sets a table variable with a visibility: public, gm or hidden.",
        |h: &mut Handle, name: &str, value: Dynamic, vis: &str| -> Fallible<()> {
            let v = if value.is_unit() { None } else { Some(h.json(value, &format!("variable {name}"))?) };
            let vis = visibility(vis)?;
            h.with(|tx| tx.set_var(name, v, Some(vis)))
        }
    );

    // ---- traits
    reg!(
        engine,
        "add_trait",
        &["t: Table", "id: String", "name: String"],
        "Gives an entity a trait.",
        |h: &mut Handle, id: &str, name: &str| -> Fallible<()> {
            h.with(|tx| tx.add_trait(id, Trait::named(name.trim())))
        }
    );
    reg!(
        engine,
        "add_trait",
        &["t: Table", "id: String", "name: String", "options: Map"],
        "Gives an entity a trait with options: rating, category, state, uses, tags, visibility, note.",
        |h: &mut Handle, id: &str, name: &str, opts: Map| -> Fallible<()> {
            let t = trait_from(name, &opts)?;
            h.with(|tx| tx.add_trait(id, t))
        }
    );
    reg!(
        engine,
        "has_trait",
        &["t: Table", "id: String", "name: String", "bool"],
        "Whether an entity has a trait (names match ignoring case).",
        |h: &mut Handle, id: &str, name: &str| { h.read(|tx| tx.find_trait(id, name).is_ok()) }
    );
    reg!(
        engine,
        "get_trait",
        &["t: Table", "id: String", "name: String", "Map"],
        "A trait of an entity: name, rating, category, state, uses, tags, visibility, note.",
        |h: &mut Handle, id: &str, name: &str| -> Fallible<Dynamic> {
            h.with(|tx| tx.find_trait(id, name).map(trait_map))
        }
    );
    reg!(
        engine,
        "nearest_traits",
        &["t: Table", "id: String", "name: String", "Array"],
        "The names of an entity's traits nearest a name typed by hand, nearest first, for \"did you mean …?\" \
         (only traits the one acting may see; empty when none is near or the entity has that trait).",
        |h: &mut Handle, id: &str, name: &str| -> Fallible<Array> {
            h.with(|tx| {
                let e = tx.entity(id)?;
                let seen = e.traits.iter().filter(|t| tx.role.sees(t.visibility, e.owner.as_deref()));
                let near = crate::names::nearest(name, seen.map(|t| t.name.as_str()));
                Ok(near.into_iter().map(|n| Dynamic::from(n.to_string())).collect())
            })
        }
    );
    reg!(engine, "traits", &["t: Table", "id: String", "Array"], "All traits of an entity.", |h: &mut Handle,
                                                                                              id: &str|
     -> Fallible<Array> {
        h.with(|tx| Ok(tx.entity(id)?.traits.iter().map(trait_map).collect()))
    });
    reg!(
        engine,
        "traits",
        &["t: Table", "id: String", "category: String", "Array"],
        "The traits of an entity in one category.",
        |h: &mut Handle, id: &str, cat: &str| -> Fallible<Array> {
            h.with(|tx| {
                Ok(tx.entity(id)?.traits.iter().filter(|t| t.category.as_deref() == Some(cat)).map(trait_map).collect())
            })
        }
    );
    reg!(
        engine,
        "set_trait",
        &["t: Table", "id: String", "name: String", "changes: Map"],
        "Updates a trait: rating, category, state, uses, tags, visibility, note.",
        |h: &mut Handle, id: &str, name: &str, opts: Map| -> Fallible<()> {
            let mut probe = Trait::named("x");
            apply_trait_opts(&mut probe, &opts)?;
            h.with(|tx| {
                tx.update_trait(id, name, |t| apply_trait_opts(t, &opts).map_err(|e| TxError::Rule(e.to_string())))?;
                Ok(())
            })
        }
    );
    reg!(
        engine,
        "use_trait",
        &["t: Table", "id: String", "name: String", "int"],
        "Counts one use of a trait and returns the new count; refuses a sealed or spent trait.",
        |h: &mut Handle, id: &str, name: &str| -> Fallible<INT> { h.with(|tx| tx.use_trait(id, name).map(INT::from)) }
    );
    reg!(
        engine,
        "usable",
        &["t: Table", "id: String", "name: String", "bool"],
        "Whether a trait exists and is active (not sealed or spent).",
        |h: &mut Handle, id: &str, name: &str| {
            h.read(|tx| tx.find_trait(id, name).map(|t| t.unusable().is_none()).unwrap_or(false))
        }
    );
    for (fname, state, doc) in [
        ("seal_trait", TraitState::Sealed, "Seals a trait: it cannot be used until unsealed."),
        ("unseal_trait", TraitState::Active, "Makes a sealed or spent trait active again."),
        ("spend_trait", TraitState::Spent, "Marks a trait spent: it cannot be used until recovered."),
    ] {
        reg!(engine, fname, &["t: Table", "id: String", "name: String"], doc, move |h: &mut Handle,
                                                                                    id: &str,
                                                                                    name: &str|
              -> Fallible<()> {
            h.with(|tx| tx.set_trait_state(id, name, state))
        });
    }
    reg!(
        engine,
        "reset_uses",
        &["t: Table", "id: String"],
        "Sets the use count of every trait of an entity back to 0.",
        |h: &mut Handle, id: &str| -> Fallible<()> {
            h.with(|tx| {
                let names: Vec<String> =
                    tx.entity(id)?.traits.iter().filter(|t| t.uses > 0).map(|t| t.name.clone()).collect();
                for n in names {
                    tx.update_trait(id, &n, |t| {
                        t.uses = 0;
                        Ok(())
                    })?;
                }
                Ok(())
            })
        }
    );
    reg!(
        engine,
        "remove_trait",
        &["t: Table", "id: String", "name: String"],
        "Removes a trait from an entity.",
        |h: &mut Handle, id: &str, name: &str| -> Fallible<()> { h.with(|tx| tx.remove_trait(id, name)) }
    );
}
