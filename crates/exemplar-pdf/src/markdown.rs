//! Renders the Markdown subset of `docs/BENCHMARK_METHODS.md`: headings, paragraphs, bullet and numbered
//! lists (nested), fenced code in Courier, indented code as displayed formulas, inline `code`,
//! **bold** and *emphasis*. Links keep their text; anything else is refused by name.

use crate::document::{Doc, BODY, LIST_INDENT};
use crate::fonts::Font;
use crate::layout::{Span, Style};
use crate::PdfError;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

struct List {
    next: Option<u64>,
}

#[derive(Default)]
struct State {
    spans: Vec<Span>,
    bold: usize,
    italic: usize,
    lists: Vec<List>,
    /// The marker of the list item whose first paragraph is still to come.
    marker: Option<String>,
    code: Option<(bool, String)>,
    /// Whether the next block follows a heading (no extra gap then).
    after_heading: bool,
}

impl State {
    fn style(&self) -> Style {
        let font = if self.bold > 0 {
            Font::HelveticaBold
        } else if self.italic > 0 {
            Font::HelveticaOblique
        } else {
            Font::Helvetica
        };
        BODY.with_font(font)
    }

    fn indent(&self) -> f32 {
        self.lists.len() as f32 * LIST_INDENT
    }

    fn flush(&mut self, doc: &mut Doc) -> Result<(), PdfError> {
        if self.spans.is_empty() {
            return Ok(());
        }
        let spans = std::mem::take(&mut self.spans);
        let in_item = !self.lists.is_empty();
        let gap = if self.after_heading {
            2.0
        } else if in_item && self.marker.is_some() {
            3.0
        } else {
            Doc::paragraph_gap()
        };
        doc.paragraph(&spans, self.indent(), self.marker.take().as_deref(), gap)?;
        self.after_heading = false;
        Ok(())
    }
}

fn unsupported(what: &str) -> PdfError {
    PdfError::Markdown(format!("{what} is not supported in the PDF"))
}

/// Appends the Markdown `text` to `doc`. Level-1 headings become the document's section
/// headings.
pub fn render(text: &str, doc: &mut Doc) -> Result<(), PdfError> {
    let mut st = State::default();
    for event in Parser::new_ext(text, Options::empty()) {
        match event {
            Event::Start(Tag::Heading { .. }) => st.flush(doc)?,
            Event::End(TagEnd::Heading(level)) => {
                let level = match level {
                    HeadingLevel::H1 => 1,
                    HeadingLevel::H2 => 2,
                    _ => 3,
                };
                let spans = std::mem::take(&mut st.spans);
                doc.heading(level, &spans)?;
                st.after_heading = true;
            }
            Event::Start(Tag::Paragraph) => {}
            Event::End(TagEnd::Paragraph) => st.flush(doc)?,
            Event::Start(Tag::Strong) => st.bold += 1,
            Event::End(TagEnd::Strong) => st.bold -= 1,
            Event::Start(Tag::Emphasis) => st.italic += 1,
            Event::End(TagEnd::Emphasis) => st.italic -= 1,
            Event::Start(Tag::Link { .. }) | Event::End(TagEnd::Link) => {}
            Event::Start(Tag::List(start)) => {
                st.flush(doc)?;
                st.lists.push(List { next: start });
            }
            Event::End(TagEnd::List(_)) => {
                st.flush(doc)?;
                st.lists.pop();
                if st.lists.is_empty() {
                    doc.gap(2.0);
                }
            }
            Event::Start(Tag::Item) => {
                st.flush(doc)?;
                let list = st
                    .lists
                    .last_mut()
                    .ok_or_else(|| unsupported("an item outside a list"))?;
                st.marker = Some(match &mut list.next {
                    Some(n) => {
                        *n += 1;
                        format!("{}.", *n - 1)
                    }
                    None => "•".to_string(),
                });
            }
            Event::End(TagEnd::Item) => st.flush(doc)?,
            Event::Start(Tag::CodeBlock(kind)) => {
                st.flush(doc)?;
                st.code = Some((matches!(kind, CodeBlockKind::Fenced(_)), String::new()));
            }
            Event::End(TagEnd::CodeBlock) => {
                let (fenced, text) = st.code.take().unwrap_or_default();
                if fenced {
                    doc.code_block(&text, st.indent(), false)?;
                } else {
                    doc.display(&text, st.indent())?;
                }
                st.after_heading = false;
            }
            Event::Text(text) => match &mut st.code {
                Some((_, code)) => code.push_str(&text),
                None => {
                    let style = st.style();
                    st.spans.push((text.into_string(), style));
                }
            },
            Event::Code(text) => {
                let style = Style::new(Font::Courier, 9.2);
                st.spans.push((text.into_string(), style));
            }
            Event::SoftBreak => {
                let style = st.style();
                st.spans.push((" ".to_string(), style));
            }
            Event::HardBreak => {
                let style = st.style();
                st.spans.push(("\n".to_string(), style));
            }
            Event::Rule => {
                st.flush(doc)?;
                doc.gap(8.0);
            }
            Event::Start(Tag::BlockQuote(_)) => return Err(unsupported("a block quote")),
            Event::Start(Tag::Image { .. }) => return Err(unsupported("an image")),
            Event::Html(_) | Event::InlineHtml(_) => return Err(unsupported("raw HTML")),
            other => return Err(unsupported(&format!("the Markdown element {other:?}"))),
        }
    }
    st.flush(doc)
}
