// Top-level domains accepted for scheme-less links ("example.com"). Country codes are the
// delegated ISO 3166 ones; generic TLDs are the common ones. Like upstream, file extensions
// that are also TLDs and mostly appear as file names (.md, .py, .zip, .mov, .java) are left out.

const COUNTRY = `ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo
br bs bt bv bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg
er es et eu fi fj fk fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu
id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv
ly ma mc me mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om
pa pe pf pg ph pk pl pm pn pr ps pt pw qa re ro rs ru rw sa sb sc sd se sg sh si sj sk sl sm sn so sr ss
st su sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu
wf ws ye yt za zm zw`;

const GENERIC = `com org net edu gov mil int arpa info biz name pro aero coop museum mobi asia tel travel jobs
cat post xxx app dev page blog cloud online site tech store shop xyz top club live news art design email
link space website today world life fun wiki guru ninja rocks zone social group chat team tools codes
systems solutions network digital media studio games photo photos pics video gallery software agency
company center academy church city click host press services support icu ltd llc inc vip one win work
works men help land plus school science run chat community foundation institute consulting expert
global house ai church events family fit health love money photography pizza pub radio report run
school show ski soccer solar style sucks tips town toys trade training tv uno vote wang watch web wtf
`;

/** The accepted top-level domains, lower case. */
export const TLDS: ReadonlySet<string> = new Set([...COUNTRY.split(/\s+/), ...GENERIC.split(/\s+/)].filter((t) => t !== ""));
