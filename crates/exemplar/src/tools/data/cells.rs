//! The records' further columns, held compactly (issue 29 item 4): held as JSON maps, one
//! per record, 20 one-character text columns took about 3 KB a record, 15× their canonical
//! JSON. Here every value is one 8-byte cell (a number's f64, or a NaN carrying a small
//! integer or the place of a text), texts are stored once each in one buffer, and column
//! names once. When every record has every column (the usual table) the cells are a
//! records × columns grid; otherwise each record's cells carry their column's number.
//!
//! Every value reads back exactly as given: an integer stays an integer (JSON writes 3, not
//! 3.0), a float keeps its bits, a text its bytes.

use serde_json::{Number, Value};
use std::collections::HashMap;

/// Texts one after another in one buffer, each named by its place. Places and offsets are
/// u32: a load's arguments are at most 16 MiB (`MAX_ARGS_BYTES`).
#[derive(Debug, Clone, Default)]
pub(super) struct Texts {
    bytes: String,
    ends: Vec<u32>,
}

impl Texts {
    pub(super) fn push(&mut self, text: &str) -> u32 {
        self.bytes.push_str(text);
        self.ends.push(self.bytes.len() as u32);
        (self.ends.len() - 1) as u32
    }

    pub(super) fn get(&self, place: u32) -> &str {
        let place = place as usize;
        let start = match place {
            0 => 0,
            _ => self.ends[place - 1] as usize,
        };
        &self.bytes[start..self.ends[place] as usize]
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len() as u32).map(|place| self.get(place))
    }

    pub(super) fn shrink(&mut self) {
        self.bytes.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * size_of::<u32>()
    }
}

/// One value in 8 bytes: a float's own bits, or a quiet NaN with the sign bit set (no JSON
/// number is a NaN) carrying a kind and 32 bits: an integer of i32's range, or the place of
/// a text, of a larger integer or of another value.
#[derive(Debug, Clone, Copy)]
struct Packed(u64);

const BOXED: u64 = 0xFFF8_0000_0000_0000;
const INT: u64 = 1;
const TEXT: u64 = 2;
const NUMBER: u64 = 3;
const OTHER: u64 = 4;

impl Packed {
    fn boxed(kind: u64, payload: u32) -> Packed {
        Packed(BOXED | kind << 32 | u64::from(payload))
    }

    /// The kind and payload of a boxed value; `None` for a float.
    fn unboxed(self) -> Option<(u64, u32)> {
        (self.0 & BOXED == BOXED).then_some(((self.0 >> 32) & 0x7, self.0 as u32))
    }
}

/// One value of a column, as read.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<'a> {
    Number(Number),
    Text(&'a str),
    /// Anything else (null, a boolean, ...): never in records the input schema accepts.
    Other(&'a Value),
}

impl<'a> Cell<'a> {
    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Cell::Text(text) => Some(text),
            _ => None,
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Cell::Text(_))
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Cell::Number(_))
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Cell::Other(Value::Null))
    }

    pub fn to_value(&self) -> Value {
        match self {
            Cell::Number(n) => Value::Number(n.clone()),
            Cell::Text(text) => Value::String((*text).to_owned()),
            Cell::Other(value) => (*value).clone(),
        }
    }
}

/// The further columns of a set of records.
#[derive(Debug, Clone, Default)]
pub struct Columns {
    records: usize,
    /// Column names in order of first appearance.
    names: Texts,
    /// The cells, record after record.
    cells: Vec<Packed>,
    /// Unless every record has every column (then both are empty and record r's cells are
    /// `cells[r·C..(r+1)·C]` in the order of `names`): where each record's cells start
    /// (k + 1 places) and each cell's column.
    starts: Vec<u32>,
    keys: Vec<u32>,
    /// Distinct texts.
    texts: Texts,
    /// Integers beyond i32.
    numbers: Vec<Number>,
    others: Vec<Value>,
}

/// One column of [`Columns`].
#[derive(Debug, Clone, Copy)]
pub struct Column<'a> {
    columns: &'a Columns,
    index: u32,
}

impl<'a> Column<'a> {
    /// Record `record`'s value, if it has one.
    pub fn get(&self, record: usize) -> Option<Cell<'a>> {
        let c = self.columns;
        if c.starts.is_empty() {
            let width = c.names.len();
            return Some(c.unpack(c.cells[record * width + self.index as usize]));
        }
        let range = c.starts[record] as usize..c.starts[record + 1] as usize;
        let at = c.keys[range.clone()]
            .iter()
            .position(|&k| k == self.index)?;
        Some(c.unpack(c.cells[range.start + at]))
    }

    /// Every record's value, in record order.
    pub fn iter(&self) -> impl Iterator<Item = Option<Cell<'a>>> + 'a {
        let column = *self;
        (0..column.columns.records).map(move |r| column.get(r))
    }
}

impl Columns {
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter()
    }

    /// Column `name`, if any record has it.
    pub(super) fn column(&self, name: &str) -> Option<Column<'_>> {
        let index = self.names().position(|n| n == name)? as u32;
        Some(Column {
            columns: self,
            index,
        })
    }

    /// Record `record`'s columns and values, in the order of `names` (a full grid) or of the
    /// record's own properties.
    pub(super) fn row(&self, record: usize) -> impl Iterator<Item = (&str, Cell<'_>)> {
        let (range, keys): (_, Option<&[u32]>) = if self.starts.is_empty() {
            let width = self.names.len();
            (record * width..(record + 1) * width, None)
        } else {
            let range = self.starts[record] as usize..self.starts[record + 1] as usize;
            (range.clone(), Some(&self.keys[range]))
        };
        let start = range.start;
        range.map(move |at| {
            let index = keys.map_or((at - start) as u32, |keys| keys[at - start]);
            (self.names.get(index), self.unpack(self.cells[at]))
        })
    }

    pub(super) fn records(&self) -> usize {
        self.records
    }

    fn unpack(&self, packed: Packed) -> Cell<'_> {
        match packed.unboxed() {
            None => Cell::Number(
                Number::from_f64(f64::from_bits(packed.0))
                    .unwrap_or_else(|| unreachable!("a float cell holds a finite number")),
            ),
            Some((INT, payload)) => Cell::Number(Number::from(payload as i32)),
            Some((TEXT, payload)) => Cell::Text(self.texts.get(payload)),
            Some((NUMBER, payload)) => Cell::Number(self.numbers[payload as usize].clone()),
            Some((_, payload)) => Cell::Other(&self.others[payload as usize]),
        }
    }

    /// The bytes its values take on the heap (every buffer at its capacity), which grows
    /// with the records; the few fixed bytes of the struct itself are not counted.
    pub(super) fn heap_bytes(&self) -> usize {
        self.names.heap_bytes()
            + self.cells.capacity() * size_of::<Packed>()
            + (self.starts.capacity() + self.keys.capacity()) * size_of::<u32>()
            + self.texts.heap_bytes()
            + self.numbers.capacity() * size_of::<Number>()
            + self.others.capacity() * size_of::<Value>()
            + self
                .others
                .iter()
                .map(|v| 8 * v.to_string().len())
                .sum::<usize>()
    }
}

/// Builds [`Columns`] record by record from borrowed JSON values, each text stored once.
pub(super) struct Builder<'a> {
    columns: Columns,
    by_name: HashMap<&'a str, u32>,
    by_text: HashMap<&'a str, u32>,
}

impl<'a> Builder<'a> {
    pub(super) fn new() -> Self {
        Builder {
            columns: Columns {
                starts: vec![0],
                ..Columns::default()
            },
            by_name: HashMap::new(),
            by_text: HashMap::new(),
        }
    }

    /// Record being built's value of column `name`.
    pub(super) fn push(&mut self, name: &'a str, value: &'a Value) {
        let c = &mut self.columns;
        let key = *self
            .by_name
            .entry(name)
            .or_insert_with(|| c.names.push(name));
        let packed = match value {
            Value::String(text) => Packed::boxed(
                TEXT,
                *self
                    .by_text
                    .entry(text)
                    .or_insert_with(|| c.texts.push(text)),
            ),
            Value::Number(n) => match n.as_i64() {
                Some(i) if i32::try_from(i).is_ok() => Packed::boxed(INT, i as i32 as u32),
                _ if n.is_f64() => Packed(n.as_f64().unwrap_or_default().to_bits()),
                _ => {
                    c.numbers.push(n.clone());
                    Packed::boxed(NUMBER, (c.numbers.len() - 1) as u32)
                }
            },
            other => {
                c.others.push(other.clone());
                Packed::boxed(OTHER, (c.others.len() - 1) as u32)
            }
        };
        c.cells.push(packed);
        c.keys.push(key);
    }

    /// Ends the record being built.
    pub(super) fn end_record(&mut self) {
        let c = &mut self.columns;
        c.records += 1;
        c.starts.push(c.cells.len() as u32);
    }

    /// The columns, as a grid when every record has every column, every buffer shrunk to
    /// its length.
    pub(super) fn finish(self) -> Columns {
        let mut c = self.columns;
        let width = c.names.len();
        if c.cells.len() == c.records * width {
            // A record's keys are distinct, so each row's keys are a permutation of the
            // columns: put each cell in its column's place (cycle by cycle, in place).
            if width > 0 {
                for (cells, keys) in c.cells.chunks_mut(width).zip(c.keys.chunks_mut(width)) {
                    for i in 0..width {
                        while keys[i] as usize != i {
                            let j = keys[i] as usize;
                            cells.swap(i, j);
                            keys.swap(i, j);
                        }
                    }
                }
            }
            c.starts = Vec::new();
            c.keys = Vec::new();
        }
        c.names.shrink();
        c.texts.shrink();
        c.cells.shrink_to_fit();
        c.starts.shrink_to_fit();
        c.keys.shrink_to_fit();
        c.numbers.shrink_to_fit();
        c.others.shrink_to_fit();
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn build(rows: &[Value]) -> Columns {
        let mut builder = Builder::new();
        for row in rows {
            for (name, value) in row.as_object().unwrap() {
                builder.push(name, value);
            }
            builder.end_record();
        }
        builder.finish()
    }

    #[test]
    fn every_value_reads_back_exactly() {
        let values = [
            json!(3),
            json!(-7),
            json!(0),
            json!(3.0),
            json!(-0.0),
            json!(0.1),
            json!(1e300),
            json!(-2.5e-310),
            json!(i64::MAX),
            json!(u64::MAX),
            json!(i64::from(i32::MIN) - 1),
            json!(i32::MIN),
            json!(i32::MAX),
            json!("x"),
            json!(""),
            json!("é ü"),
            json!(null),
            json!(true),
        ];
        let rows: Vec<Value> = values.iter().map(|v| json!({"a": v, "b": "x"})).collect();
        let columns = build(&rows);
        assert!(columns.starts.is_empty(), "a full grid");
        let a = columns.column("a").unwrap();
        for (r, value) in values.iter().enumerate() {
            let cell = a.get(r).unwrap();
            assert_eq!(&cell.to_value(), value);
            assert_eq!(cell.to_value().to_string(), value.to_string());
            if let (Cell::Number(n), Value::Number(m)) = (&cell, value) {
                assert_eq!(n.as_f64().map(f64::to_bits), m.as_f64().map(f64::to_bits));
            }
        }
        assert_eq!(columns.texts.len(), 3, "\"x\" is stored once");
        assert!(columns.column("c").is_none());
    }

    #[test]
    fn records_with_different_columns_keep_theirs() {
        let rows = [
            json!({"b": 1, "a": "p"}),
            json!({}),
            json!({"c": 2.5}),
            json!({"a": "q", "b": 2}),
        ];
        let columns = build(&rows);
        assert_eq!(columns.names().collect::<Vec<_>>(), ["b", "a", "c"]);
        assert!(!columns.starts.is_empty());
        for (r, row) in rows.iter().enumerate() {
            let read: serde_json::Map<String, Value> = columns
                .row(r)
                .map(|(n, c)| (n.to_owned(), c.to_value()))
                .collect();
            assert_eq!(&Value::Object(read), row);
            for name in ["a", "b", "c"] {
                assert_eq!(
                    columns.column(name).unwrap().get(r).map(|c| c.to_value()),
                    row.get(name).cloned()
                );
            }
        }
        // The same columns in another order make a grid in the order of first appearance.
        let grid = build(&[json!({"a": 1, "b": "x"}), json!({"b": "y", "a": 2})]);
        assert!(grid.starts.is_empty());
        assert_eq!(grid.column("b").unwrap().get(1), Some(Cell::Text("y")));
        assert_eq!(
            grid.column("a").unwrap().get(1).unwrap().as_f64(),
            Some(2.0)
        );
        assert_eq!(size_of::<Packed>(), 8);
    }
}
