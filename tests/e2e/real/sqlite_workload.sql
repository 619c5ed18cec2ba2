-- sqlite_workload.sql - the sqlite3 real-program e2e workload: a table of
-- 20000 rows inserted in one transaction, a second table, a join with
-- group by, and a few aggregates. Output is deterministic.
CREATE TABLE item(id INTEGER PRIMARY KEY, grp INTEGER, name TEXT, val REAL);
CREATE TABLE grp(id INTEGER PRIMARY KEY, label TEXT);
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO item(id, grp, name, val) SELECT i, i % 37, 'item-' || i, (i * 7919) % 1000 / 10.0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 36)
INSERT INTO grp(id, label) SELECT i, 'group-' || i FROM n;
COMMIT;
CREATE INDEX item_grp ON item(grp);
SELECT count(*), sum(val), min(name), max(name) FROM item;
SELECT g.label, count(*), round(avg(i.val), 4), max(i.val)
  FROM item i JOIN grp g ON g.id = i.grp
  GROUP BY g.label ORDER BY count(*) DESC, g.label LIMIT 10;
SELECT grp, group_concat(id, ',') FROM (SELECT grp, id FROM item WHERE id % 1000 = 0 ORDER BY id) GROUP BY grp ORDER BY grp;
UPDATE item SET val = val * 2 WHERE grp = 5;
SELECT round(sum(val), 2) FROM item WHERE grp = 5;
