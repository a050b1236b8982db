//! The generic responder's records: per organization, per collection (the concrete path a
//! list answers, `/v1/coupons` or `/v1/plans/<id>/items`), the records created, changed or
//! seeded there, and the ids deleted.

use std::collections::{HashMap, HashSet};

use crate::api::{Record, s};

/// Records seeded into a collection the first time it is listed or written.
pub const SEEDED: usize = 2;

/// One organization's generic records.
#[derive(Clone, Debug, Default)]
pub struct Store {
    collections: HashMap<String, Collection>,
    created: usize,
}

#[derive(Clone, Debug, Default)]
struct Collection {
    seeded: bool,
    records: Vec<Record>,
    deleted: HashSet<String>,
}

impl Store {
    /// A new number for a created record's id.
    pub fn next_number(&mut self) -> usize {
        self.created += 1;
        self.created
    }

    /// Whether `id` was deleted from `collection`.
    pub fn deleted(&self, collection: &str, id: &str) -> bool {
        self.collections
            .get(collection)
            .is_some_and(|c| c.deleted.contains(id))
    }

    /// The record with `id` in `collection`, if one was stored.
    pub fn get(&self, collection: &str, id: &str) -> Option<&Record> {
        self.collections
            .get(collection)?
            .records
            .iter()
            .find(|r| s(r, "id") == Some(id))
    }

    /// The collection's records in order, seeded first with `seed(n)` when it is new.
    pub fn list(&mut self, collection: &str, seed: impl Fn(usize) -> Record) -> &[Record] {
        let c = self.collections.entry(collection.to_owned()).or_default();
        if !c.seeded {
            c.seeded = true;
            let deleted = &c.deleted;
            let seeds: Vec<Record> = (0..SEEDED)
                .map(seed)
                .filter(|r| !s(r, "id").is_some_and(|id| deleted.contains(id)))
                .collect();
            c.records.splice(0..0, seeds);
        }
        &c.records
    }

    /// Stores `record` (by its `id`), replacing one with the same id.
    pub fn put(&mut self, collection: &str, record: Record) {
        let c = self.collections.entry(collection.to_owned()).or_default();
        let id = s(&record, "id").map(str::to_owned);
        match c
            .records
            .iter()
            .position(|r| s(r, "id").map(str::to_owned) == id)
        {
            Some(at) => c.records[at] = record,
            None => c.records.push(record),
        }
    }

    /// Deletes `id` from `collection`: later reads of it are 404.
    pub fn delete(&mut self, collection: &str, id: &str) {
        let c = self.collections.entry(collection.to_owned()).or_default();
        c.records.retain(|r| s(r, "id") != Some(id));
        c.deleted.insert(id.to_owned());
    }
}
