// Oracle dumper: loads TAU profiles with TAU's own perfdmf readers (the code ParaProf uses)
// and prints every (thread, metric, function) profile and every (thread, user event) profile as CSV.
//
// Usage: java -cp classes:classes-common:<jars>:. Dump <input> <out.csv> [<out.events.csv>]
//   <input> is either a directory of profile.N.C.T files (or MULTI__* metric dirs), read with
//   TauDataSource exactly as ParaProf's UtilFncs.initializeDataSource does (FileList.helperFindProfiles),
//   or a .ppk file, read with PackedProfileDataSource.
//
// Derived data: load() ends with DataSource.generateDerivedData(), which may add functions
// (groups TAU_CALLPATH_DERIVED / TAU_DERIVED: intermediate call paths, [SUMMARY] sample
// aggregates), may add those groups to existing functions, and may even rename [SAMPLE] callpath
// functions.  To dump exactly what the file reader produced, generateDerivedData() is overridden
// in an anonymous subclass to snapshot every Function object (its name and groups) before the
// derivation runs.  Functions not in that snapshot are "derived" and are NOT written to the main
// CSV (a count goes to stderr and they are listed in <out.csv>.derived if any exist); names and
// groups are printed as they were before derivation.
// Only real threads (node/context/thread tree via getThreads()) are dumped; the MEAN/TOTAL/
// STDDEV/MIN/MAX pseudo threads are not.
import edu.uoregon.tau.perfdmf.*;
import edu.uoregon.tau.perfdmf.Thread;

import java.io.*;
import java.util.*;

public class Dump {

    static final IdentityHashMap<Function, String> origName = new IdentityHashMap<>();
    static final IdentityHashMap<Function, String> origGroups = new IdentityHashMap<>();

    static void snapshot(DataSource ds) {
        for (Iterator<Function> it = ds.getFunctionIterator(); it.hasNext();) {
            Function f = it.next();
            origName.put(f, f.getName());
            StringBuilder g = new StringBuilder();
            List<Group> groups = f.getGroups();
            if (groups != null) {
                for (Group grp : groups) {
                    if (g.length() > 0) g.append('|');
                    g.append(grp.getName());
                }
            }
            origGroups.put(f, g.toString());
        }
    }

    static String csv(String s) {
        if (s == null) return "";
        if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
            return "\"" + s.replace("\"", "\"\"") + "\"";
        }
        return s;
    }

    static String d(double v) {
        return Double.toString(v);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: Dump <profile-dir|file.ppk> <out.csv> [<out.events.csv>]");
            System.exit(2);
        }
        File in = new File(args[0]);
        DataSource ds;
        if (in.isDirectory()) {
            List<File[]> dirs = new FileList().helperFindProfiles(in.getPath());
            if (dirs.isEmpty()) throw new RuntimeException("no profiles in " + in);
            ds = new TauDataSource(dirs) {
                @Override
                public void generateDerivedData() {
                    snapshot(this);
                    super.generateDerivedData();
                }
            };
        } else if (in.getName().toLowerCase().endsWith(".ppk")) {
            ds = new PackedProfileDataSource(in) {
                @Override
                public void generateDerivedData() {
                    snapshot(this);
                    super.generateDerivedData();
                }
            };
        } else {
            throw new RuntimeException("unsupported input " + in);
        }
        ds.load();
        if (origName.isEmpty() && ds.getNumFunctions() > 0) {
            throw new RuntimeException("snapshot hook did not run");
        }

        int nMetrics = ds.getNumberOfMetrics();
        int rows = 0, derivedRows = 0, evRows = 0;
        Set<String> derivedNames = new TreeSet<>();
        try (PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(new FileOutputStream(args[1]), "UTF-8")))) {
            out.print("node,context,thread,metric_index,metric_name,function_name,groups,calls,subroutines,exclusive,inclusive\n");
            for (Thread t : ds.getThreads()) {
                if (t.getNodeID() < 0) continue; // pseudo threads (never in the tree, but be safe)
                for (FunctionProfile fp : t.getFunctionProfiles()) {
                    if (fp == null) continue;
                    Function f = fp.getFunction();
                    if (!origName.containsKey(f)) {
                        derivedRows++;
                        derivedNames.add(f.getName() + "  [groups: " + f.getGroupString() + "]");
                        continue;
                    }
                    for (int m = 0; m < nMetrics; m++) {
                        out.print(t.getNodeID() + "," + t.getContextID() + "," + t.getThreadID() + "," + m + ","
                                + csv(ds.getMetricName(m)) + "," + csv(origName.get(f)) + "," + csv(origGroups.get(f)) + ","
                                + d(fp.getNumCalls()) + "," + d(fp.getNumSubr()) + ","
                                + d(fp.getExclusive(m)) + "," + d(fp.getInclusive(m)) + "\n");
                        rows++;
                    }
                }
            }
        }
        if (args.length >= 3) {
            try (PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(new FileOutputStream(args[2]), "UTF-8")))) {
                out.print("node,context,thread,event_name,numsamples,max,min,mean,sumsqr\n");
                for (Thread t : ds.getThreads()) {
                    if (t.getNodeID() < 0) continue;
                    for (Iterator<UserEventProfile> it = t.getUserEventProfiles(); it.hasNext();) {
                        UserEventProfile uep = it.next();
                        if (uep == null) continue;
                        out.print(t.getNodeID() + "," + t.getContextID() + "," + t.getThreadID() + ","
                                + csv(uep.getName()) + "," + d(uep.getNumSamples()) + "," + d(uep.getMaxValue()) + ","
                                + d(uep.getMinValue()) + "," + d(uep.getMeanValue()) + "," + d(uep.getSumSquared()) + "\n");
                        evRows++;
                    }
                }
            }
        }
        if (!derivedNames.isEmpty()) {
            try (PrintWriter out = new PrintWriter(new FileWriter(args[1] + ".derived"))) {
                for (String s : derivedNames) out.println(s);
            }
        }
        // functions whose name or groups were changed by generateDerivedData (reported, not used)
        int renamed = 0;
        for (Map.Entry<Function, String> e : origName.entrySet()) {
            if (!e.getKey().getName().equals(e.getValue())) renamed++;
        }
        System.err.println("Dump " + in + ": threads=" + ds.getThreads().size() + " metrics=" + nMetrics
                + " functions(reader)=" + origName.size() + " functions(after derive)=" + ds.getNumFunctions()
                + " rows=" + rows + " skipped_derived_profiles=" + derivedRows + " renamed_by_derive=" + renamed
                + (args.length >= 3 ? " event_rows=" + evRows : ""));
    }
}
