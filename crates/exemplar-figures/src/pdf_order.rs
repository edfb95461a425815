//! One order for svg2pdf's output, so that a figure's PDF is the same bytes on every run.
//!
//! svg2pdf 0.13 writes two things in the order of a hash map, which a process seeds at
//! random: the objects of each embedded font (and so the numbers they get), and the entries
//! of a resource dictionary (`/Font`, `/ExtGState`, …). Everything else it writes in the
//! order of the SVG. Here the resource entries are sorted by name, and the objects are
//! renumbered in the order a walk from the trailer (`/Root`, then `/Info`) first reaches
//! them, each object's references taken in the order they are written. The streams (page
//! content, fonts, maps) are kept byte for byte: they name resources, never object numbers.
//!
//! One more thing differs between platforms: svg2pdf names each font subset with a tag
//! (`ABCDEF+LiberationSans`) hashed from data whose hash depends on the width of `usize`,
//! so a 64-bit machine and wasm32 tag the same subset differently. The tag is replaced by
//! one hashed (64-bit FNV-1a) from the subset's own bytes, the same everywhere, and still
//! different for different subsets, as the PDF format asks.
//!
//! The reader knows exactly the layout pdf-writer writes (`N 0 obj`, a dictionary a line an
//! entry, `stream` with its `/Length` first, the cross-reference table, the trailer); on
//! anything else it answers `None` and the caller keeps svg2pdf's bytes.

use std::collections::HashMap;
use std::io::Write;

const HEADER_END: &[u8] = b"\n\n";
const STREAM_START: &[u8] = b">>\nstream\n";
const STREAM_END: &[u8] = b"\nendstream\nendobj\n\n";
const OBJECT_END: &[u8] = b"\nendobj\n\n";
/// The resource dictionaries whose entries svg2pdf writes unordered.
const RESOURCE_KINDS: [&str; 6] = [
    "/Font <<",
    "/XObject <<",
    "/ExtGState <<",
    "/Pattern <<",
    "/Shading <<",
    "/ColorSpace <<",
];

/// An object as written: its dictionary text (references to renumber) and, for a stream,
/// the stream's bytes (kept as they are).
struct Object<'a> {
    head: String,
    stream: Option<&'a [u8]>,
}

/// `pdf` with its resource entries sorted and its objects renumbered in walk order, or
/// `None` when it is not laid out as pdf-writer lays out svg2pdf's output.
pub(crate) fn canonical(pdf: &[u8]) -> Option<Vec<u8>> {
    let header_len = find(pdf, HEADER_END, 0)? + HEADER_END.len();
    let (mut objects, trailer) = objects(pdf, header_len)?;
    retag_subsets(&mut objects)?;
    let root = reference_after(trailer, "/Root ")?;
    let info = reference_after(trailer, "/Info ")?;

    // New numbers, 1, 2, … in the order the walk first meets each object.
    let mut number: HashMap<u32, u32> = HashMap::new();
    let mut order = Vec::new();
    for start in [root, info] {
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(old) = queue.pop_front() {
            if number.contains_key(&old) {
                continue;
            }
            let object = objects.get(&old)?;
            number.insert(old, order.len() as u32 + 1);
            order.push(old);
            queue.extend(references(&object.head).into_iter().map(|(_, id)| id));
        }
    }
    if order.len() != objects.len() {
        return None;
    }

    let mut out = pdf[..header_len].to_vec();
    let mut offsets = Vec::with_capacity(order.len());
    for old in &order {
        let object = &objects[old];
        offsets.push(out.len());
        writeln!(out, "{} 0 obj", number[old]).ok()?;
        out.extend(renumbered(&object.head, &number)?.as_bytes());
        match object.stream {
            Some(bytes) => {
                out.extend(STREAM_START);
                out.extend(bytes);
                out.extend(STREAM_END);
            }
            None => out.extend(OBJECT_END),
        }
    }
    let xref = out.len();
    write!(out, "xref\n0 {}\n0000000000 65535 f\r\n", order.len() + 1).ok()?;
    for offset in offsets {
        write!(out, "{offset:010} 00000 n\r\n").ok()?;
    }
    write!(
        out,
        "trailer\n<<\n  /Size {}\n  /Root {} 0 R\n  /Info {} 0 R\n>>\nstartxref\n{xref}\n%%EOF",
        order.len() + 1,
        number[&root],
        number[&info]
    )
    .ok()?;
    Some(out)
}

/// The objects from `at` to the cross-reference table, by number, and the trailer's text.
fn objects(pdf: &[u8], mut at: usize) -> Option<(HashMap<u32, Object<'_>>, &str)> {
    let mut objects = HashMap::new();
    while !pdf[at..].starts_with(b"xref\n") {
        let line_end = find(pdf, b"\n", at)?;
        let id: u32 = std::str::from_utf8(&pdf[at..line_end])
            .ok()?
            .strip_suffix(" 0 obj")?
            .parse()
            .ok()?;
        let body = line_end + 1;
        // The dictionary has no binary data: the first of the two ends is its own.
        let stream = find(pdf, STREAM_START, body);
        let plain = find(pdf, OBJECT_END, body);
        let object = match (stream, plain) {
            (Some(s), p) if p.is_none_or(|p| s < p) => {
                let head = std::str::from_utf8(&pdf[body..s]).ok()?;
                let length: usize = head
                    .lines()
                    .find_map(|l| l.trim().strip_prefix("/Length "))?
                    .parse()
                    .ok()?;
                let data = s + STREAM_START.len();
                let end = data.checked_add(length)?;
                if !pdf.get(end..)?.starts_with(STREAM_END) {
                    return None;
                }
                at = end + STREAM_END.len();
                Object {
                    head: sorted_resources(head),
                    stream: Some(&pdf[data..end]),
                }
            }
            (_, Some(p)) => {
                at = p + OBJECT_END.len();
                Object {
                    head: sorted_resources(std::str::from_utf8(&pdf[body..p]).ok()?),
                    stream: None,
                }
            }
            _ => return None,
        };
        if objects.insert(id, object).is_some() {
            return None;
        }
    }
    let trailer = std::str::from_utf8(&pdf[find(pdf, b"trailer\n", at)?..]).ok()?;
    Some((objects, trailer))
}

/// Each font subset's tag replaced by one hashed from its font file's bytes, wherever the
/// dictionaries name it (`/BaseFont`, `/FontName`).
fn retag_subsets(objects: &mut HashMap<u32, Object<'_>>) -> Option<()> {
    let mut tags = Vec::new();
    for object in objects.values() {
        let Some(at) = object.head.find("/FontName /") else {
            continue;
        };
        let name = &object.head[at + "/FontName /".len()..];
        // A font that is not a subset has no tag.
        let Some(old) = name.get(..7).filter(|t| t.ends_with('+')) else {
            continue;
        };
        let file = object
            .head
            .lines()
            .find_map(|l| l.trim().strip_prefix("/FontFile2 "))
            .and_then(|r| r.strip_suffix(" 0 R")?.parse::<u32>().ok())?;
        let bytes = objects.get(&file)?.stream?;
        tags.push((format!("/{old}"), format!("/{}+", tag(bytes))));
    }
    for object in objects.values_mut() {
        for (old, new) in &tags {
            if object.head.contains(old.as_str()) {
                object.head = object.head.replace(old.as_str(), new);
            }
        }
    }
    Some(())
}

/// Six capital letters from the 64-bit FNV-1a hash of `bytes`.
fn tag(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (0..6)
        .map(|_| {
            let letter = b'A' + (hash % 26) as u8;
            hash /= 26;
            char::from(letter)
        })
        .collect()
}

/// A dictionary's text with each resource dictionary's entries (a line each) sorted.
fn sorted_resources(head: &str) -> String {
    let lines: Vec<&str> = head.split('\n').collect();
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        out.push(lines[i]);
        let opener = lines[i].trim_start();
        i += 1;
        if !RESOURCE_KINDS.contains(&opener) {
            continue;
        }
        let indent = lines[i - 1].len() - opener.len();
        let close = format!("{}>>", " ".repeat(indent));
        let Some(len) = lines[i..].iter().position(|l| *l == close) else {
            continue;
        };
        let mut entries = lines[i..i + len].to_vec();
        // Only entries of one line each are reordered (an entry's value that spans lines
        // would be torn apart).
        let entry_indent = " ".repeat(indent + 2);
        if entries
            .iter()
            .all(|e| e.starts_with(&format!("{entry_indent}/")) && !e.ends_with("<<"))
        {
            entries.sort_unstable();
        }
        out.extend(entries);
        i += len;
    }
    out.join("\n")
}

/// Each reference `N 0 R` in `text`: its byte range and N.
fn references(text: &str) -> Vec<(std::ops::Range<usize>, u32)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(rel) = text[from..].find(" 0 R") {
        let end = from + rel;
        let after = end + " 0 R".len();
        let start = bytes[..end]
            .iter()
            .rposition(|b| !b.is_ascii_digit())
            .map_or(0, |p| p + 1);
        let boundary_before = start == 0 || matches!(bytes[start - 1], b' ' | b'[' | b'\n');
        let boundary_after = bytes
            .get(after)
            .is_none_or(|b| matches!(b, b'\n' | b' ' | b']'));
        if start < end && boundary_before && boundary_after {
            if let Ok(id) = text[start..end].parse() {
                found.push((start..end, id));
            }
        }
        from = after;
    }
    found
}

/// `text` with every reference's number replaced by its new one.
fn renumbered(text: &str, number: &HashMap<u32, u32>) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (range, old) in references(text) {
        out.push_str(&text[last..range.start]);
        out.push_str(&number.get(&old)?.to_string());
        last = range.end;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// The object number of the reference after `key` in the trailer.
fn reference_after(trailer: &str, key: &str) -> Option<u32> {
    let rest = &trailer[trailer.find(key)? + key.len()..];
    rest[..rest.find(" 0 R")?].parse().ok()
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PDF as pdf-writer lays it out, its objects and resource entries in the order given.
    fn written(font_first: bool) -> Vec<u8> {
        let mut pdf = b"%PDF-1.7\n%\x80\x80\x80\x80\n\n".to_vec();
        let mut offsets = Vec::new();
        let mut object = |pdf: &mut Vec<u8>, text: &str| {
            offsets.push(pdf.len());
            pdf.extend(text.as_bytes());
        };
        let fonts = if font_first {
            "      /fo0 5 0 R\n      /fo1 6 0 R"
        } else {
            "      /fo1 6 0 R\n      /fo0 5 0 R"
        };
        object(
            &mut pdf,
            "1 0 obj\n<<\n  /Type /Catalog\n  /Pages 2 0 R\n>>\nendobj\n\n",
        );
        object(
            &mut pdf,
            "2 0 obj\n<<\n  /Type /Pages\n  /Count 1\n  /Kids [3 0 R]\n>>\nendobj\n\n",
        );
        object(
            &mut pdf,
            &format!("3 0 obj\n<<\n  /Type /Page\n  /Contents 4 0 R\n  /Resources <<\n    /Font <<\n{fonts}\n    >>\n  >>\n>>\nendobj\n\n"),
        );
        object(
            &mut pdf,
            "4 0 obj\n<<\n  /Length 6\n>>\nstream\n0 0 R\n\nendstream\nendobj\n\n",
        );
        let (a, b) = if font_first { (7, 8) } else { (8, 7) };
        object(
            &mut pdf,
            &format!("5 0 obj\n<<\n  /Type /Font\n  /FontDescriptor {a} 0 R\n>>\nendobj\n\n"),
        );
        object(
            &mut pdf,
            &format!("6 0 obj\n<<\n  /Type /Font\n  /FontDescriptor {b} 0 R\n>>\nendobj\n\n"),
        );
        if font_first {
            object(&mut pdf, "7 0 obj\n<<\n  /FontName /A\n>>\nendobj\n\n");
            object(&mut pdf, "8 0 obj\n<<\n  /FontName /B\n>>\nendobj\n\n");
        } else {
            object(&mut pdf, "7 0 obj\n<<\n  /FontName /B\n>>\nendobj\n\n");
            object(&mut pdf, "8 0 obj\n<<\n  /FontName /A\n>>\nendobj\n\n");
        }
        object(
            &mut pdf,
            "9 0 obj\n<<\n  /Producer (svg2pdf)\n>>\nendobj\n\n",
        );
        let xref = pdf.len();
        pdf.extend(b"xref\n0 10\n0000000000 65535 f\r\n");
        for o in offsets {
            pdf.extend(format!("{o:010} 00000 n\r\n").as_bytes());
        }
        pdf.extend(
            format!("trailer\n<<\n  /Size 10\n  /Root 1 0 R\n  /Info 9 0 R\n>>\nstartxref\n{xref}\n%%EOF").as_bytes(),
        );
        pdf
    }

    #[test]
    fn both_orders_become_one_and_the_walk_numbers_the_objects() {
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        let (a, b) = (written(true), written(false));
        assert_ne!(text(&a), text(&b));
        let canonical_a = canonical(&a).unwrap();
        assert_eq!(text(&canonical_a), text(&canonical(&b).unwrap()));
        // Already in walk order, with sorted entries: nothing changes.
        assert_eq!(text(&canonical_a), text(&a));
        // The stream's bytes, which look like a reference, are kept.
        let text = text(&canonical_a);
        assert!(text.contains("stream\n0 0 R\n\nendstream"), "{text}");
    }

    #[test]
    fn a_subset_s_tag_is_hashed_from_its_font_file() {
        let pdf = |tag: &str| {
            let mut pdf = b"%PDF-1.7\n%\x80\x80\x80\x80\n\n".to_vec();
            let mut offsets = Vec::new();
            for text in [
                "1 0 obj\n<<\n  /Type /Catalog\n  /Font 2 0 R\n>>\nendobj\n\n".to_string(),
                format!(
                    "2 0 obj\n<<\n  /BaseFont /{tag}+Sans\n  /FontDescriptor 3 0 R\n>>\nendobj\n\n"
                ),
                format!("3 0 obj\n<<\n  /FontName /{tag}+Sans\n  /FontFile2 4 0 R\n>>\nendobj\n\n"),
                "4 0 obj\n<<\n  /Length 4\n>>\nstream\nglyf\nendstream\nendobj\n\n".to_string(),
                "5 0 obj\n<<\n  /Producer (svg2pdf)\n>>\nendobj\n\n".to_string(),
            ] {
                offsets.push(pdf.len());
                pdf.extend(text.as_bytes());
            }
            pdf.extend(b"xref\n0 6\n");
            pdf.extend(
                b"trailer\n<<\n  /Size 6\n  /Root 1 0 R\n  /Info 5 0 R\n>>\nstartxref\n0\n%%EOF",
            );
            String::from_utf8_lossy(&canonical(&pdf).unwrap()).into_owned()
        };
        let (a, b) = (pdf("ABCDEF"), pdf("QWERTY"));
        assert_eq!(a, b);
        let tag = tag(b"glyf");
        assert_eq!(a.matches(&format!("/{tag}+Sans")).count(), 2, "{a}");
        assert!(tag.len() == 6 && tag.chars().all(|c| c.is_ascii_uppercase()));
        assert_ne!(tag, super::tag(b"glyf2"));
    }

    #[test]
    fn what_is_not_pdf_writer_s_layout_is_left_alone() {
        assert_eq!(canonical(b"%PDF-1.7\n\n1 0 obj\n<<"), None);
        let mut truncated = written(true);
        truncated.truncate(truncated.len() / 2);
        assert_eq!(canonical(&truncated), None);
    }
}
