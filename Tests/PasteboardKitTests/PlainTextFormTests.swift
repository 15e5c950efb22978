import Foundation
import PasteboardModel
import Testing

/// The plain text offered beside HTML and RTF: what a browser or a word processor would paste as text.
@Suite struct PlainTextFormTests {
    @Test(arguments: [
        ("<b>bold</b> text", "bold text"),
        ("<p>one</p><p>two</p>", "one\ntwo"),
        ("line<br>break", "line\nbreak"),
        ("a &lt;tag&gt; &amp; &#233;&#xE9; &euro; &bogus; & alone", "a <tag> & éé € &bogus; & alone"),
        ("<style>p { color: red }</style><script>if (a < b) go()</script>visible", "visible"),
        ("  lots   of\n\n  space  ", "lots of space"),
        ("<pre>keep\n  this</pre>", "keep\n  this"),
        ("<!-- a > comment -->after", "after"),
        ("<ul><li>first</li><li>second</li></ul>", "first\nsecond"),
        ("<table><tr><td>a</td><td>b</td></tr></table>", "a\tb"),
        ("unclosed <b", "unclosed"),
    ])
    func html(_ html: String, text: String) {
        #expect(PlainTextForm.html(html) == text)
    }

    @Test func rtf() {
        let rtf = #"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}{\colortbl;\red255\green0\blue0;}\f0\pard Hello \b world\b0\par caf\'e9 \u8364? \{braces\}\par}"#
        #expect(PlainTextForm.rtf(rtf) == "Hello world\ncafé € {braces}")
    }

    @Test func textHasNoOtherPlainForm() {
        #expect(PlainTextForm.text(of: Data("plain".utf8), as: .utf8PlainText) == nil)
        #expect(PlainTextForm.text(of: Data("<b>x</b>".utf8), as: .html) == "x")
        #expect(PlainTextForm.text(of: Data(), as: .html) == nil)
    }

    @Test(arguments: ["<script>", "<!--", "<b", "&amp", "<p>"])
    func hostileHTMLStaysLinear(_ unit: String) {
        let html = String(repeating: unit, count: (256 << 10) / unit.utf8.count)
        let started = ContinuousClock.now
        _ = PlainTextForm.html(html)
        #expect(ContinuousClock.now - started < .seconds(5), "256 KB of \(unit) took \(ContinuousClock.now - started)")
    }
}
