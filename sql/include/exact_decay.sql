-- The exact decay's closed form, for the expected figures of the suites
-- that check the usage by hand (decay_law, billing_history): a unit
-- charged at t weighs 2^(-(a - t)/h) at a, so a rate of 1 over [s, e)
-- weighs (h/ln 2)(2^(-(a - e)/h) - 2^(-(a - s)/h)) at a.
CREATE FUNCTION pg_temp.span(s timestamptz, e timestamptz, a timestamptz, h float8) RETURNS float8
LANGUAGE sql IMMUTABLE
RETURN h / ln(2) * (power(2::float8, -extract(epoch FROM a - e)::float8 / h)
                   - power(2::float8, -extract(epoch FROM a - s)::float8 / h));
-- (relative difference under 1e-12: the same figure)
CREATE FUNCTION pg_temp.same(x float8, y float8) RETURNS boolean
LANGUAGE sql IMMUTABLE RETURN abs(x - y) <= 1e-12 * greatest(abs(x), abs(y));
