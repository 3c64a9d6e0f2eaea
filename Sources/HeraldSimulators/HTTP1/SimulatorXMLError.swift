/// Why a body is not acceptable XML.
struct SimulatorXMLError: Error {
    let message: String
}
