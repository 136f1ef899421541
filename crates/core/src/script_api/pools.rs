//! Token pools: counts, adding, taking, transfers and definitions.
//!
//! Pools are addressed as `"name"` (a table pool) or `"entity.name"` (an entity's pool).

use super::{reg, visibility, Fallible, Handle};
use crate::pool::{Pool, DEFAULT_KIND};
use rhai::{Array, Dynamic, Engine, Map, INT};

fn pool_from(opts: &Map) -> Fallible<Pool> {
    let mut kinds: Vec<String> = Vec::new();
    if let Some(k) = opts.get("kinds") {
        let a = k.clone().try_cast::<Array>().ok_or("kinds is an array of names")?;
        kinds = a.into_iter().map(|d| d.to_string()).collect();
    }
    if kinds.is_empty() {
        kinds.push(DEFAULT_KIND.to_string());
    }
    let mut counts: indexmap::IndexMap<String, i64> = kinds.iter().map(|k| (k.clone(), 0)).collect();
    let mut pool = Pool::new(0, 0, None, Default::default());
    for (k, v) in opts {
        match k.as_str() {
            "kinds" => {}
            "label" => pool.label = if v.is_unit() { None } else { Some(v.to_string()) },
            "floor" => pool.floor = v.as_int().map_err(|_| "floor is a whole number")?,
            "cap" => {
                pool.cap = if v.is_unit() { None } else { Some(v.as_int().map_err(|_| "cap is a whole number or ()")?) }
            }
            "visibility" => pool.visibility = visibility(&v.to_string())?,
            "initial" => {
                if let Ok(n) = v.as_int() {
                    counts[0] = n;
                } else if let Some(m) = v.clone().try_cast::<Map>() {
                    for (kind, n) in m {
                        if !counts.contains_key(kind.as_str()) {
                            return Err(format!("initial names '{kind}', which is not one of the kinds").into());
                        }
                        counts.insert(kind.to_string(), n.as_int().map_err(|_| "initial counts are whole numbers")?);
                    }
                } else {
                    return Err("initial is a whole number or a map of kind to count".into());
                }
            }
            other => {
                return Err(format!(
                    "a pool has no option '{other}' (use label, kinds, initial, floor, cap, visibility)"
                )
                .into())
            }
        }
    }
    pool.counts = counts;
    Ok(pool)
}

pub(super) fn register(engine: &mut Engine) {
    reg!(
        engine,
        "has_pool",
        &["t: Table", "pool: String", "bool"],
        "Whether the pool exists (\"name\" or \"entity.name\").",
        |h: &mut Handle, r: &str| h.read(|tx| tx.pool(r).is_ok())
    );
    reg!(engine, "pool", &["t: Table", "pool: String", "int"], "The number of tokens in a pool.", |h: &mut Handle,
                                                                                                   r: &str|
     -> Fallible<
        INT,
    > {
        h.with(|tx| Ok(tx.pool(r)?.1.total()))
    });
    reg!(
        engine,
        "pool",
        &["t: Table", "pool: String", "kind: String", "int"],
        "The number of tokens of one kind in a pool.",
        |h: &mut Handle, r: &str, kind: &str| -> Fallible<INT> {
            h.with(|tx| {
                let (pr, p) = tx.pool(r)?;
                p.count(kind).ok_or_else(|| crate::tx::TxError::Rule(format!("{pr} has no kind '{kind}'")))
            })
        }
    );
    reg!(
        engine,
        "pool_info",
        &["t: Table", "pool: String", "Map"],
        "A pool's counts (per kind), total, floor, cap and label.",
        |h: &mut Handle, r: &str| -> Fallible<Map> {
            h.with(|tx| {
                let (_, p) = tx.pool(r)?;
                let mut m = Map::new();
                m.insert("total".into(), Dynamic::from(p.total()));
                m.insert(
                    "counts".into(),
                    p.counts.iter().map(|(k, v)| (k.as_str().into(), Dynamic::from(*v))).collect::<Map>().into(),
                );
                m.insert("floor".into(), Dynamic::from(p.floor));
                m.insert("cap".into(), p.cap.map(Dynamic::from).unwrap_or(Dynamic::UNIT));
                m.insert("label".into(), p.label.clone().map(Dynamic::from).unwrap_or(Dynamic::UNIT));
                Ok(m)
            })
        }
    );
    reg!(
        engine,
        "add",
        &["t: Table", "pool: String", "n: int"],
        "Adds tokens; refuses to pass the pool's cap.",
        |h: &mut Handle, r: &str, n: INT| -> Fallible<()> { h.with(|tx| tx.add(r, n, None)) }
    );
    reg!(
        engine,
        "add",
        &["t: Table", "pool: String", "n: int", "kind: String"],
        "Adds tokens of one kind; refuses to pass the cap.",
        |h: &mut Handle, r: &str, n: INT, kind: &str| -> Fallible<()> { h.with(|tx| tx.add(r, n, Some(kind))) }
    );
    reg!(
        engine,
        "add_capped",
        &["t: Table", "pool: String", "n: int", "int"],
        "Adds what fits under the cap and returns how many were added; the rest are lost.",
        |h: &mut Handle, r: &str, n: INT| -> Fallible<INT> { h.with(|tx| tx.add_capped(r, n, None)) }
    );
    reg!(
        engine,
        "take",
        &["t: Table", "pool: String", "n: int"],
        "Takes tokens; refuses to go below the pool's floor.",
        |h: &mut Handle, r: &str, n: INT| -> Fallible<()> { h.with(|tx| tx.take(r, n, None)) }
    );
    reg!(
        engine,
        "take",
        &["t: Table", "pool: String", "n: int", "kind: String"],
        "Takes tokens of one kind; refuses to take more than there are.",
        |h: &mut Handle, r: &str, n: INT, kind: &str| -> Fallible<()> { h.with(|tx| tx.take(r, n, Some(kind))) }
    );
    reg!(
        engine,
        "take_upto",
        &["t: Table", "pool: String", "n: int", "int"],
        "Takes up to n tokens, as many as the floor allows; returns how many were taken.",
        |h: &mut Handle, r: &str, n: INT| -> Fallible<INT> { h.with(|tx| tx.take_upto(r, n, None)) }
    );
    reg!(
        engine,
        "set_pool",
        &["t: Table", "pool: String", "n: int"],
        "Sets the count of a single-kind pool (within floor and cap).",
        |h: &mut Handle, r: &str, n: INT| -> Fallible<()> { h.with(|tx| tx.set_pool(r, n, None)) }
    );
    reg!(
        engine,
        "set_pool",
        &["t: Table", "pool: String", "n: int", "kind: String"],
        "Sets the count of one kind in a pool.",
        |h: &mut Handle, r: &str, n: INT, kind: &str| -> Fallible<()> { h.with(|tx| tx.set_pool(r, n, Some(kind))) }
    );
    reg!(
        engine,
        "transfer",
        &["t: Table", "from: String", "to: String", "n: int"],
        "Moves n tokens from one pool to another, all or nothing: refused if either side would pass its floor or cap.",
        |h: &mut Handle, from: &str, to: &str, n: INT| -> Fallible<()> { h.with(|tx| tx.transfer(from, to, n, None)) },
    );
    reg!(
        engine,
        "transfer",
        &["t: Table", "from: String", "to: String", "n: int", "kind: String"],
        "Moves n tokens of one kind between pools, all or nothing.",
        |h: &mut Handle, from: &str, to: &str, n: INT, kind: &str| -> Fallible<()> {
            h.with(|tx| tx.transfer(from, to, n, Some(kind)))
        }
    );
    reg!(
        engine,
        "define_pool",
        &["t: Table", "pool: String", "options: Map"],
        "Creates or redefines a pool (\"name\" or \"entity.name\") with options: label, kinds, initial (number or map per kind), floor, cap, visibility.",
        |h: &mut Handle, r: &str, opts: Map| -> Fallible<()> {
            let p = pool_from(&opts)?;
            h.with(|tx| tx.define_pool(r, p))
        },
    );
    reg!(
        engine,
        "set_cap",
        &["t: Table", "pool: String", "cap: ?"],
        "Changes a pool's cap (a number, or () for none); the tokens must fit.",
        |h: &mut Handle, r: &str, cap: Dynamic| -> Fallible<()> {
            let cap = if cap.is_unit() { None } else { Some(cap.as_int().map_err(|_| "cap is a whole number or ()")?) };
            h.with(|tx| {
                let (_, p) = tx.pool(r)?;
                let mut def = p.clone();
                def.cap = cap;
                tx.define_pool(r, def)
            })
        }
    );
}
