#!/usr/bin/env python3
"""Oracle CSV dumps of a CUBE4 .cubex profile, produced with pycubexr.

Usage:  PYTHONPATH=/work/oracles/cube/pycubexr python3 dump.py FILE.cubex OUT_PREFIX

Writes OUT_PREFIX.tree.csv, .locations.csv, .metrics.csv, .values.csv
(RFC 4180 CSV via Python's csv module: fields with ',' or '"' are quoted).

Everything comes from pycubexr's object model, except two things pycubexr does
not expose, which are read from the same anchor.xml with ElementTree:
  * the cnode call-site attributes  line= / mod=  (tree.csv callsite_*)
  * the system-tree node <class> child element (pycubexr reads a 'class'
    attribute, which does not exist, so SystemTreeNode.clazz is always None)

values.csv: one row per (numeric metric with data, cnode in id order,
location Id; the data-file column index IS the location Id, see below).
  exclusive = cnode_values(cnode, convert_to_exclusive=True)[col]
  inclusive = cnode_values(cnode, convert_to_inclusive=True)[col]
  stored    = cnode_values(cnode)[col]   (as stored in the file; cnodes absent
              from the sparse index read as 0)
Numbers are printed with repr() of the Python scalar (float -> shortest
round-trip repr, ints exact).  If pycubexr cannot convert a metric, the
column that cannot be computed holds 'NA' and metrics.csv says why.
pycubexr semantics worth knowing when comparing:
  * inclusive->exclusive = own - sum(children's inclusive); for UNSIGNED ints a
    child larger than the parent is clamped so the result is 0 (no wrap-around).
  * MINDOUBLE/MAXDOUBLE (stored EXCLUSIVE): inclusive = min/max over the subtree,
    but a child that is 0 at every location is skipped (CubeLib would take the 0);
    metrics.csv status counts the affected values.
  * UINT64 values > 0xFFFFFFFFFFFFFBFF are read as 0 (pycubexr default, CubeLib
    emulation); a NOTE is printed if that happens.
"""
import csv
import sys
import xml.etree.ElementTree as ET
from gzip import GzipFile

import numpy as np

from pycubexr import CubexParser
from pycubexr.classes.values import CubeValues, MinValues, MaxValues
from pycubexr.utils.exceptions import MissingMetricError, UnsupportedMetricFormatError

# dtypes whose values are plain scalars (the C++ reader is checked on these)
NUMERIC_DTYPES = {
    'CHAR', 'DOUBLE', 'FLOAT', 'INT', 'INT8', 'INT16', 'INT32', 'INT64', 'INTEGER',
    'UINT8', 'UINT16', 'UINT32', 'UINT64', 'SHORT INT', 'SIGNED INT', 'SIGNED INTEGER',
    'SIGNED SHORT INT', 'UNSIGNED INT', 'UNSIGNED INTEGER', 'UNSIGNED SHORT INT',
    'MINDOUBLE', 'MAXDOUBLE',
}


def scalar(v):
    """numpy / CubeValues element -> repr() of a plain Python number."""
    if isinstance(v, CubeValues):
        v = v._values
    if isinstance(v, np.ndarray):
        assert v.shape == (), v
        v = v[()]
    if isinstance(v, (np.integer, int)):
        return repr(int(v))
    if isinstance(v, (np.floating, float)):
        return repr(float(v))
    return repr(v)


def read_raw_anchor(cubex):
    """Second parse of anchor.xml for attributes pycubexr drops (cnode line/mod)."""
    with cubex._cubex_file.extractfile('anchor.xml') as f:
        head = f.read(5)
        f.seek(0)
        root = ET.parse(GzipFile(fileobj=f) if head != b'<?xml' else f).getroot()
    return ({int(e.get('id')): e for e in root.iter('cnode')},
            {int(e.get('Id')): e for e in root.iter('systemtreenode')})


def walk_metrics(metrics, parent=None):
    for m in metrics:
        yield m, parent
        yield from walk_metrics(m.childs, m)


def dump(path, prefix):
    notes = []
    with CubexParser(path) as cubex:
        raw_cnodes, raw_stns = read_raw_anchor(cubex)
        cnodes = sorted(cubex.all_cnodes(), key=lambda c: c.id)

        # ---------------- (a) call tree ----------------
        with open(prefix + '.tree.csv', 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['cnode_id', 'parent_cnode_id', 'region_id', 'region_name', 'region_mangled_name',
                        'region_mod', 'region_begin', 'region_end', 'region_paradigm', 'region_role',
                        'callsite_line', 'callsite_mod', 'parameters'])
            for c in cnodes:
                r = c.region
                e = raw_cnodes[c.id]
                params = ';'.join('%s=%s' % kv for kv in c.parameters.items())
                w.writerow([c.id, c.parent.id if c.parent is not None else -1, r.id, r.name, r.mangled_name,
                            r.mod if r.mod is not None else '', r.begin, r.end, r.paradigm, r.role,
                            e.get('line', ''), e.get('mod', ''), params])

        # ---------------- (b) locations ----------------
        # Same traversal as SystemTreeNode.all_locations() (XML document order),
        # but keeping the parents: per system-tree node first its own location groups,
        # then recursively its child system-tree nodes; within a group its locations,
        # then nested groups.
        rows = []

        def walk_lg(lg, stn):
            for loc in lg._locations:
                rows.append((loc, lg, stn))
            for sub in lg._location_groups:
                walk_lg(sub, stn)

        def walk_stn(stn):
            for lg in stn._location_group_children:
                walk_lg(lg, stn)
            for child in stn._system_tree_node_children:
                walk_stn(child)

        for stn in cubex._anchor_result.system_tree_nodes:
            walk_stn(stn)
        locs = cubex.get_locations()          # pycubexr order = XML document order
        assert [r[0] for r in rows] == locs
        # The data files hold one value per location, indexed by location *Id*
        # (CubeLib semantics; pycubexr's location_value(cnode, location_id) also indexes
        # by Id).  get_locations() is in XML document order, which differs when Ids are
        # not in document order (cube-values_example.cubex: 0,2,1,3).
        ids = sorted(l.id for l in locs)
        assert ids == list(range(len(locs))), 'location Ids are not 0..L-1: %s' % ids
        doc_pos = {loc.id: i for i, loc in enumerate(locs)}
        with open(prefix + '.locations.csv', 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['location_id', 'doc_order', 'location_name', 'location_type', 'location_rank',
                        'lg_id', 'lg_name', 'lg_type', 'lg_rank', 'stn_id', 'stn_name', 'stn_class'])
            for loc, lg, stn in sorted(rows, key=lambda r: r[0].id):
                w.writerow([loc.id, doc_pos[loc.id], loc.name, loc.type, loc.rank, lg.id, lg.name, lg.type,
                            lg.rank, stn.id, stn.name, raw_stns[stn.id].findtext('class', '')])
        if [l.id for l in locs] != ids:
            notes.append('location Ids are NOT in document order %s: values.csv uses data column == location Id '
                         '(CubeLib / location_value semantics), not get_locations() order' % [l.id for l in locs])

        # ---------------- (c) metrics + (d) values ----------------
        metrics = sorted(walk_metrics(cubex.get_metrics()), key=lambda mp: mp[0].id)
        mrows = []
        with open(prefix + '.values.csv', 'w', newline='') as vf:
            vw = csv.writer(vf)
            vw.writerow(['metric', 'cnode_id', 'location_id', 'exclusive', 'inclusive', 'stored'])
            for m, parent in metrics:
                status = 'ok'
                n_idx = ''
                if m.data_type not in NUMERIC_DTYPES:
                    status = 'skipped: non-scalar dtype'
                else:
                    try:
                        mv = cubex.get_metric_values(m, cache=False)
                    except MissingMetricError:
                        mv = None
                        status = 'missing: no %d.index/%d.data in archive' % (m.id, m.id)
                    except UnsupportedMetricFormatError:
                        mv = None
                        status = 'skipped: pycubexr UnsupportedMetricFormatError'
                    if mv is not None:
                        n_idx = len(mv.cnode_indices)
                        if m.data_type in ('UINT64', 'UNSIGNED INTEGER'):
                            full = cubex.get_metric_values(m, cache=False, allow_full_uint64_values=True)
                            nclamp = int(np.count_nonzero(full.values != mv.values))
                            if nclamp:
                                notes.append('%s: %d UINT64 values > 0xFFFFFFFFFFFFFBFF zeroed (CubeLib emulation)'
                                             % (m.name, nclamp))
                        bad = {}
                        table = []
                        for c in cnodes:
                            stored = mv.cnode_values(c)
                            col = {}
                            for kind, kw in (('exclusive', dict(convert_to_exclusive=True)),
                                             ('inclusive', dict(convert_to_inclusive=True))):
                                try:
                                    col[kind] = mv.cnode_values(c, **kw)
                                except Exception as ex:  # pycubexr cannot convert this one
                                    col[kind] = None
                                    bad.setdefault(kind, '%s: %s' % (type(ex).__name__, ex))
                            table.append((c, stored, col))
                        if bad:
                            status = 'partial: ' + '; '.join('%s not computable (%s)' % kv for kv in bad.items())
                        elif isinstance(mv.values, (MinValues, MaxValues)):
                            # pycubexr aggregates MIN/MAX subtrees with min/max but skips a child whose
                            # inclusive values are 0 at *every* location; CubeLib (cube_dump) does a
                            # plain min/max (0 included).  Count where the two disagree.
                            agg = np.minimum if isinstance(mv.values, MinValues) else np.maximum
                            plain = {}
                            def incl(c):
                                if c.id not in plain:
                                    v = np.array(mv.cnode_values(c)._values, dtype=float)
                                    for ch in c.get_children():
                                        v = agg(v, incl(ch))
                                    plain[c.id] = v
                                return plain[c.id]
                            diff = [(c.id, j) for c, _, col in table for j in range(len(locs))
                                    if float(col['inclusive'][j]._values) != incl(c)[j]]
                            status = ('ok: %s aggregated with %s; inclusive differs from plain %s (CubeLib) in %d '
                                      'values %s because pycubexr skips all-zero children'
                                      % (m.data_type, agg.__name__, agg.__name__, len(diff), diff[:6]))
                        for c, stored, col in table:
                            for j in range(len(locs)):   # data column j == location Id j
                                vw.writerow([m.name, c.id, j,
                                             scalar(col['exclusive'][j]) if col['exclusive'] is not None else 'NA',
                                             scalar(col['inclusive'][j]) if col['inclusive'] is not None else 'NA',
                                             scalar(stored[j])])
                mrows.append([m.id, m.name, m.display_name, m.data_type, m.units, m.metric_type,
                              parent.id if parent is not None else -1, parent.name if parent is not None else '',
                              n_idx, status])
        with open(prefix + '.metrics.csv', 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['metric_id', 'uniq_name', 'disp_name', 'dtype', 'uom', 'type', 'parent_id',
                        'parent_uniq_name', 'n_indexed_cnodes', 'status'])
            w.writerows(mrows)

    print('%s: %d cnodes, %d locations, %d metrics' % (path, len(cnodes), len(locs), len(mrows)))
    for r in mrows:
        if r[-1] != 'ok':
            print('  metric %s (%s): %s' % (r[1], r[3], r[-1]))
    for n in notes:
        print('  NOTE', n)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    dump(sys.argv[1], sys.argv[2])
