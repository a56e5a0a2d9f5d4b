// End-to-end tests start real processes: give them time (Jest 30 ignores a project's testTimeout).
jest.setTimeout(120000);
