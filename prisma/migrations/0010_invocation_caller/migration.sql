-- The caller of an API invocation (its identity as the function's `user` argument: uuid,
-- username and staff flags, or the API key's app; never a credential), kept with the row so that
-- a queued run re-enqueued by the sweep after a lost job still gets it. Null for event runs.
ALTER TABLE event_invocations ADD COLUMN caller jsonb;
