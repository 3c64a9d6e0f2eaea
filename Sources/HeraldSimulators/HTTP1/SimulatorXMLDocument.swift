import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A parsed XML body, for the WNS and MPNS simulators to check what the real services check: well-formedness,
/// the root element, its namespace and attributes.
struct SimulatorXMLDocument {
    /// One element with its attributes and child elements (text content is not kept).
    struct Element {
        /// The qualified name as written (`wp:Toast`).
        var name: String
        /// The name without its prefix (`Toast`).
        var localName: String
        /// The namespace URI the name is in, when namespaces are processed.
        var namespaceURI: String?
        /// Attributes by qualified name.
        var attributes: [String: String]
        /// Child elements in order.
        var children: [Element]

        /// The first child called `name`.
        func child(_ name: String) -> Element? { children.first { $0.name == name } }
    }

    /// The document element.
    let root: Element

    /// Parses `bytes`; `nil` with the parser's message when the document is not well formed.
    static func parse(_ bytes: [UInt8], processNamespaces: Bool = false) -> Result<SimulatorXMLDocument, SimulatorXMLError> {
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = processNamespaces
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        let builder = Builder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let message = parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed XML"
            return .failure(SimulatorXMLError(message: message))
        }
        return .success(SimulatorXMLDocument(root: root))
    }

    /// Collects the element tree from the parser's callbacks.
    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [Element] = []
        var root: Element?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let name = qualifiedName ?? elementName
            let localName = name.split(separator: ":").last.map(String.init) ?? name
            stack.append(Element(name: name, localName: localName, namespaceURI: namespaceURI, attributes: attributes, children: []))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }
    }
}
