import Collections
import HeraldCore
import Testing

@Suite("Template")
struct TemplateTests {
    private let data: OrderedDictionary<String, String> = ["name": "world", "a.b": "deep", "a": "shallow", "x": "${var.name}"]
    private let vars: OrderedDictionary<String, String> = ["name": "Bob", "loop": "${var.loop}"]

    private func render(_ source: String) throws(PayloadError) -> String {
        try Template(source).render(event: "sport", data: data, vars: vars)
    }

    @Test("rendering", arguments: [
        ("plain text", "plain text"),
        ("", ""),
        ("hello ${var.name}", "hello Bob"),
        ("hello ${data.name}", "hello world"),
        ("${data.a.b}", "deep"),  // the key is everything after the first dot
        ("${data.a}", "shallow"),
        ("on ${event.name}!", "on sport!"),
        ("${var.name}${var.name}", "BobBob"),
        ("$name and $ {var.name} and $", "$name and $ {var.name} and $"),
        ("${var.name}}", "Bob}"),
        ("{${var.name}}", "{Bob}"),
        ("cost: $5 ${var.name}", "cost: $5 Bob"),
        ("unterminated ${var.name", "unterminated ${var.name"),
        ("${", "${"),
        ("$${var.name}", "$Bob"),
        ("${data.x}", "${var.name}"),  // replaced text is not scanned again
        ("${var.loop}", "${var.loop}"),
        ("é ${var.name} ✓ 😀", "é Bob ✓ 😀"),
        ("${var.\nname} ${var.name}", "${var.\nname} Bob"),  // JavaScript's `.` stops at line terminators
        ("${a\r${var.name}", "${a\r" + "Bob"),
        ("${var.na\u{2028}me}", "${var.na\u{2028}me}"),
        ("${${${\n${var.name}", "${${${\nBob"),
    ])
    func rendering(_ source: String, _ expected: String) throws {
        #expect(try render(source) == expected)
    }

    @Test("placeholder errors", arguments: [
        ("hello ${var.missing}", "The ${var.missing} does not exist"),
        ("hello ${data.missing}", "The ${data.missing} does not exist"),
        ("${data.a.c}", "The ${data.a.c} does not exist"),
        ("${var.}", "The ${var.} does not exist"),
        ("hello ${name}", "Invalid variable type for ${name}"),
        ("${x.y}", "Invalid variable type for ${x.y}"),
        ("${event.other}", "Invalid variable type for ${event.other}"),
        ("${event}", "Invalid variable type for ${event}"),
        ("${var}", "Invalid variable type for ${var}"),
        ("${}", "Invalid variable type for ${}"),
        ("${ var.name}", "Invalid variable type for ${ var.name}"),
        ("${VAR.name}", "Invalid variable type for ${VAR.name}"),
        ("${${var.name}}", "Invalid variable type for ${${var.name}"),  // lazy: up to the first `}`
        ("${x} ${var.missing}", "Invalid variable type for ${x}"),  // the first failure, left to right
        ("${var.missing} ${x}", "The ${var.missing} does not exist"),
    ])
    func errors(_ source: String, _ reason: String) {
        #expect(throws: PayloadError(reason)) { try render(source) }
    }

    @Test("a template without placeholders is literal")
    func literalFastPath() throws {
        let template = Template("no placeholder $ here {}")
        #expect(template.isLiteral)
        #expect(try template.render(event: "e", data: [:], vars: [:]) == "no placeholder $ here {}")
        #expect(!Template("a ${var.b}").isLiteral)
        #expect(Template("${a\nb}").isLiteral)
    }

    @Test("templates compare by source")
    func equality() {
        #expect(Template("a ${var.b}") == Template("a ${var.b}"))
        #expect(Template("a ${var.b}") != Template("a ${var.c}"))
        #expect(Set([Template("x"), Template("x"), Template("y")]).count == 2)
        #expect(Template("a ${var.b}").source == "a ${var.b}")
    }
}
