import HeraldWNS
import Testing

/// The escaping every WNS and MPNS XML text goes through.
@Suite struct XMLEscapingTests {
    @Test func markupCharactersAreEscapedInText() {
        #expect(XMLEscaping.text(#"Tom & Jerry <b>"hi"</b> it's"#) == "Tom &amp; Jerry &lt;b&gt;&quot;hi&quot;&lt;/b&gt; it&apos;s")
    }

    @Test func plainAndNonASCIITextIsUnchanged() {
        #expect(XMLEscaping.text("Goal! ⚽️ Müller 2–1") == "Goal! ⚽️ Müller 2–1")
        #expect(XMLEscaping.text("") == "")
    }

    @Test func whitespaceIsKeptInTextButEncodedInAttributes() {
        #expect(XMLEscaping.text("a\tb\nc\rd") == "a\tb\nc\rd")
        #expect(XMLEscaping.attribute("a\tb\nc\rd") == "a&#9;b&#10;c&#13;d")
    }

    @Test func attributesEscapeBothQuotes() {
        #expect(XMLEscaping.attribute(#"x="1" & y='2'"#) == "x=&quot;1&quot; &amp; y=&apos;2&apos;")
    }

    @Test func charactersXMLForbidsAreLeftOut() {
        #expect(XMLEscaping.text("a\u{0}b\u{1}c\u{1B}d\u{FFFE}e\u{FFFF}f") == "abcdef")
        #expect(XMLEscaping.attribute("\u{8}x") == "x")
    }

    @Test func anEscapedAmpersandIsEscapedAgain() {
        #expect(XMLEscaping.text("&amp;") == "&amp;amp;")
    }
}
