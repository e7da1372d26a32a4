/** Organization data exports' stored values, upstream's RealmExport constants: an export's state and type. */

/** An export's state. */
export const EXPORT_STATUS = { requested: 1, started: 2, succeeded: 3, failed: 4, deleted: 5 } as const;

/** The export types the API offers: public data only, or also the private data of users who consented. */
export const EXPORT_TYPE = { public: 1, fullWithConsent: 2 } as const;
