//! Markdown from the model, as HTML that cannot run anything: `pulldown-cmark` renders the
//! structure, raw HTML comes out as escaped text, links keep only `http`, `https` and `mailto`
//! targets, and images become links (a page opened offline must not fetch anything).

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// Text rendered at most; the rest of a longer text is in the row's JSON.
const MAX_RENDERED: usize = 256 * 1024;

/// `text` (Markdown) as safe HTML.
pub fn render(text: &str) -> String {
    if text.trim().is_empty() {
        return String::new();
    }
    let mut end = text.len().min(MAX_RENDERED);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let (text, cut) = (&text[..end], text.len() - end);
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    let events = Parser::new_ext(text, options).map(|event| match event {
        // Raw HTML is shown, not interpreted.
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        // An image would be fetched: a link to it instead.
        Event::Start(Tag::Image {
            dest_url,
            title,
            id,
            ..
        }) => Event::Start(Tag::Link {
            link_type: LinkType::Inline,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    if cut > 0 {
        html.push_str(&format!(
            "<p><em>… {cut} more bytes, in the JSON below</em></p>\n"
        ));
    }
    html
}

/// Only web and mail links; anything else (`javascript:`, `data:`, …) points nowhere.
fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    if ["http://", "https://", "mailto:"]
        .iter()
        .any(|s| lower.starts_with(s))
    {
        url
    } else {
        CowStr::Borrowed("#")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_renders_and_nothing_runs() {
        assert_eq!(
            render("**bold** and `code`"),
            "<p><strong>bold</strong> and <code>code</code></p>\n"
        );
        let evil = render("<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>");
        assert!(
            !evil.contains("<script") && !evil.contains("<img"),
            "{evil}"
        );
        assert!(evil.contains("&lt;script&gt;"), "{evil}");
        let link = render("[x](javascript:alert(1)) [y](https://example.com)");
        assert!(
            link.contains("href=\"#\"") && link.contains("href=\"https://example.com\""),
            "{link}"
        );
        let image = render("![pic](https://example.com/a.png)");
        assert!(
            !image.contains("<img") && image.contains("<a href=\"https://example.com/a.png\""),
            "{image}"
        );
        assert_eq!(render("  "), "");
    }
}
