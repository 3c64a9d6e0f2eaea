// A test of the whole application also uses the fixtures (simulators' test beds, test servers,
// certificates, receivers): importing the harness brings them.
@_exported import HeraldTestFixtures
